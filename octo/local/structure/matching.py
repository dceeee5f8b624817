"""ast-grep over file texts: the matches of a pattern or rule, with what each meta-variable
captured. Blocking (parsing is CPU work): callers run it in a worker thread."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from typing import Any
from typing import cast

from ast_grep_py import SgNode
from ast_grep_py import SgRoot

from octo.core.errors import InvalidQueryError
from octo.core.secrets.redaction import learn
from octo.core.secrets.redaction import redact
from octo.local.structure.models import StructureMatch

if TYPE_CHECKING:
    from ast_grep_py import Config

#: Longest matched text returned, in characters.
MAX_TEXT = 400
#: Longest capture returned, in characters.
MAX_CAPTURE = 200

_META = re.compile(r"\$\$\$([A-Z_][A-Z0-9_]*)|\$([A-Z_][A-Z0-9_]*)")


@dataclass(frozen=True)
class Matcher:
    """A pattern or a rule, the language it is in, and the meta-variables it names."""

    language: str
    pattern: str | None
    rule: dict[str, Any] | None
    #: (name, True for a $$$ one)
    variables: tuple[tuple[str, bool], ...]

    @classmethod
    def of(cls, language: str, pattern: str | None, rule: dict[str, Any] | None) -> Matcher:
        source = pattern if pattern is not None else json.dumps(rule)
        found: dict[str, bool] = {}
        for many, one in _META.findall(source):
            found.setdefault(many or one, bool(many))
        return cls(language, pattern, rule, tuple(found.items()))

    def check(self) -> None:
        """Raise INVALID_QUERY when the bindings reject the rule (on an empty file)."""
        self._find(SgRoot("", self.language).root())

    def _find(self, root: SgNode) -> list[SgNode]:
        try:
            if self.rule is not None:
                # The rule is the caller's JSON: the bindings check its shape.
                config = cast("Config", {"rule": self.rule})
                return root.find_all(config)
            return root.find_all(pattern=self.pattern or "")
        # The bindings raise a bare Exception for a rule they cannot use.
        except Exception as exc:  # noqa: BLE001
            raise InvalidQueryError(
                f"ast-grep cannot use this rule: {str(exc)[:300]}",
                hints=[
                    'A rule takes pattern, kind, regex, inside, has, not, all, any (e.g. {"kind":'
                    ' "call", "inside": {"kind": "class_definition", "stopBy": "end"}}).'
                ],
            ) from None

    def matches(self, shown: str, text: str) -> list[StructureMatch]:
        """The matches in ``text`` (the file shown as ``shown``), their text redacted."""
        found = []
        nodes = self._find(SgRoot(text, self.language).root())
        if nodes:
            learn(text)  # a capture may hold a secret of the file without its name
        for node in nodes:
            where = node.range()
            matched = redact(node.text())
            found.append(
                StructureMatch(
                    path=shown,
                    startLine=where.start.line + 1,
                    startColumn=where.start.column,
                    endLine=where.end.line + 1,
                    endColumn=where.end.column,
                    text=matched if len(matched) <= MAX_TEXT else matched[:MAX_TEXT] + "...",
                    captures=self._captures(node),
                )
            )
        return found

    def _captures(self, node: SgNode) -> dict[str, str]:
        captures: dict[str, str] = {}
        for name, many in self.variables:
            if many:
                parts: Iterable[SgNode] = node.get_multiple_matches(name)
                text = ", ".join(part.text() for part in parts if part.is_named())
            else:
                one = node.get_match(name)
                if one is None:
                    continue
                text = one.text()
            text = redact(text)
            captures[name] = text if len(text) <= MAX_CAPTURE else text[:MAX_CAPTURE] + "..."
        return captures


def match_texts(
    matcher: Matcher, files: Iterable[tuple[str, str]], cap: int
) -> list[StructureMatch]:
    """The matches in ``files`` ((shown, text) pairs), at most ``cap``."""
    found: list[StructureMatch] = []
    for shown, text in files:
        found.extend(matcher.matches(shown, text))
        if len(found) >= cap:
            return found[:cap]
    return found
