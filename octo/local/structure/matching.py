"""ast-grep over file texts: the matches of a pattern or rule, with what each meta-variable
captured, in-process (blocking: callers run it in a worker thread) or from the byte ranges
the CLI reported (:class:`FileText`); and the check of a pattern or rule before a search."""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING
from typing import Any
from typing import cast

from ast_grep_py import SgNode
from ast_grep_py import SgRoot

from octo.core.errors import InvalidQueryError
from octo.core.errors import OctoError
from octo.core.errors import QueryValidationError
from octo.core.secrets.redaction import learn
from octo.local.structure.models import StructureMatch
from octo.local.structure.sg_child import Found

if TYPE_CHECKING:
    from ast_grep_py import Config

#: Longest matched text returned, in characters.
MAX_TEXT = 400
#: Longest capture returned, in characters.
MAX_CAPTURE = 200

#: Characters read past a cut before redacting it: a secret at the cut is still recognised.
_MARGIN = 2048
_NEWLINE = re.compile(b"\n")

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
        """Raise VALIDATION_ERROR for a pattern that is no complete piece of code, and
        INVALID_QUERY when the bindings reject the rule (both tried on an empty file)."""
        self._find(SgRoot("", self.language).root())

    def rule_document(self) -> str:
        """The pattern or rule as an ast-grep rule document (JSON) for the CLI."""
        rule = self.rule if self.rule is not None else {"pattern": self.pattern}
        return json.dumps({"id": "octo", "language": self.language, "rule": rule})

    def _find(self, root: SgNode) -> list[SgNode]:
        try:
            if self.rule is not None:
                # The rule is the caller's JSON: the bindings check its shape.
                config = cast("Config", {"rule": self.rule})
                return root.find_all(config)
            return root.find_all(pattern=self.pattern or "")
        # The bindings raise a bare Exception (or RuntimeError) for a rule they cannot use.
        except Exception as exc:  # noqa: BLE001
            raise _refusal(str(exc), self.pattern) from None

    def matches(self, shown: str, text: str) -> list[StructureMatch]:
        """The matches in ``text`` (the file shown as ``shown``), their text cut."""
        found = []
        nodes = self._find(SgRoot(text, self.language).root())
        if nodes:
            learn(text)  # a capture may hold a secret of the file without its name
        for node in nodes:
            where = node.range()
            found.append(
                StructureMatch(
                    path=shown,
                    startLine=where.start.line + 1,
                    startColumn=where.start.column,
                    endLine=where.end.line + 1,
                    endColumn=where.end.column,
                    text=_clipped(node.text(), MAX_TEXT),
                    captures=self._captures(node, text),
                )
            )
        return found

    def _captures(self, node: SgNode, text: str) -> dict[str, str]:
        captures: dict[str, str] = {}
        for name, many in self.variables:
            if many:
                parts = [part for part in node.get_multiple_matches(name) if part.is_named()]
                if not parts:
                    continue
                # From its first node to its last, as the file has it (as the CLI's are).
                found = text[parts[0].range().start.index : parts[-1].range().end.index]
            else:
                one = node.get_match(name)
                if one is None:
                    continue
                found = one.text()
            captures[name] = _clipped(found, MAX_CAPTURE)
        return captures


def _clipped(text: str, longest: int) -> str:
    """``text`` cut at ``longest`` characters: the file's values are known to the call
    (:meth:`StructureRule.matches`), so a piece of one the cut leaves is hidden with the
    answer, and a file that holds a secret is matched over the text octo shows."""
    return text if len(text) <= longest else text[:longest] + "..."


#: What ast-grep says of a pattern that is not one whole piece of code.
_NOT_ONE_NODE = ("Multiple AST nodes", "Cannot parse", "invalid pattern", "Pattern contains")


def _refusal(said: str, pattern: str | None) -> OctoError:
    """The error for what ast-grep refused: its reason without the Rust backtrace."""
    reason = said.split("Stack backtrace:")[0].strip()
    lines = [line.strip() for line in reason.splitlines() if line.strip()]
    last = re.sub(r"^\d+:\s*", "", lines[-1]) if lines else "ast-grep refused it"
    if any(words in reason for words in _NOT_ONE_NODE):
        source = f"'{pattern}'" if pattern is not None else "The rule's pattern"
        return QueryValidationError(
            f"{source} is not a pattern: a pattern must be one complete piece of code that"
            f" parses on its own in the language (an expression, a statement or a definition),"
            f" with $NAME or $$$NAMES standing for parts ({last[:200]})",
            hints=[
                "Write the whole construct it belongs to, e.g."
                " 'try: $$$BODY\nexcept Exception: pass' instead of 'except Exception: pass'.",
                'Or match a node kind with a rule: {"kind": "except_clause", "has":'
                ' {"kind": "pass_statement", "stopBy": "end"}} (kinds are the grammar\'s).',
            ],
        )
    return InvalidQueryError(
        f"ast-grep cannot use this rule: {last[:300]}",
        hints=[
            'A rule takes pattern, kind, regex, inside, has, not, all, any (e.g. {"kind":'
            ' "call", "inside": {"kind": "class_definition", "stopBy": "end"}}).'
        ],
    )


class FileText:
    """A file's bytes as octo read them, where the CLI's byte ranges are looked up."""

    def __init__(self, shown: str, data: bytes) -> None:
        self.shown = shown
        self.data = data
        self._newlines = [found.start() for found in _NEWLINE.finditer(data)]

    def _text(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", "replace")

    def _where(self, offset: int) -> tuple[int, int]:
        """(0-based line, column in characters) of a byte offset."""
        line = bisect.bisect_left(self._newlines, offset)
        line_start = self._newlines[line - 1] + 1 if line else 0
        return line, len(self._text(line_start, offset))

    def match(self, found: Found) -> StructureMatch | None:
        """The match the CLI reported, from these bytes; None when they no longer hold it
        (the file changed, or was swapped, since the CLI read it)."""
        if not 0 <= found.start <= found.end <= len(self.data):
            return None
        # Longer texts are cut: the head is compared before the cut.
        text = self._text(found.start, min(found.end, found.start + 4 * MAX_TEXT + _MARGIN))
        if not text.startswith(found.head):
            return None
        start_line, start_column = self._where(found.start)
        end_line, end_column = self._where(found.end)
        captures = {
            name: _clipped(
                self._text(start, min(end, start + 4 * MAX_CAPTURE + _MARGIN)), MAX_CAPTURE
            )
            for name, (start, end) in found.captures.items()
            if 0 <= start <= end <= len(self.data)
        }
        return StructureMatch(
            path=self.shown,
            startLine=start_line + 1,
            startColumn=start_column,
            endLine=end_line + 1,
            endColumn=end_column,
            text=_clipped(text, MAX_TEXT),
            captures=captures,
        )
