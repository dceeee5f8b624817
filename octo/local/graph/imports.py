"""What a file's import statements say, before they are resolved to files: one
:class:`RawImport` per imported name, found by a language's extractor."""

from __future__ import annotations

from dataclasses import dataclass

from ast_grep_py import SgNode

#: The import is inside ``if TYPE_CHECKING:`` (Python) or ``import type`` (TypeScript).
TYPE_ONLY = 1
#: The import runs only when a function runs (Python: inside a ``def``).
LAZY = 2
#: The module is named by a literal at run time: ``importlib.import_module("x")``,
#: ``import("x")``, ``require("x")``.
DYNAMIC = 4
#: Rust: ``mod x;`` declares the module whose file is ``x.rs`` or ``x/mod.rs``.
DECLARES_MODULE = 8


@dataclass(frozen=True, slots=True)
class RawImport:
    """One import as written: its 1-based line, the statement's text (one line, cut),
    what it names (a module, a path, a package), the names taken from it, how many dots
    lead a Python relative import, and the flags above."""

    line: int
    text: str
    spec: str
    names: tuple[str, ...] = ()
    level: int = 0
    flags: int = 0

    def as_row(self) -> list[object]:
        """A compact JSON row (the disk cache)."""
        return [self.line, self.text, self.spec, list(self.names), self.level, self.flags]

    @classmethod
    def of_row(cls, row: list[object]) -> RawImport:
        line, text, spec, names, level, flags = row
        assert isinstance(names, list)
        return cls(
            int(str(line)),
            str(text),
            str(spec),
            tuple(map(str, names)),
            int(str(level)),
            int(str(flags)),
        )


def shown_text(text: str) -> str:
    """A statement on one line, at most 160 characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= 160 else flat[:157] + "..."


@dataclass(frozen=True, slots=True)
class Extracted:
    """What a language's extractor read in one file: its imports, the names it declares
    (packages, namespaces, modules; several joined by spaces), whether it is a program's
    entry, and a problem worth a diagnostic (a syntax error the parser recovered from)."""

    imports: list[RawImport]
    declares: str | None = None
    runs: bool = False
    problem: str | None = None


def syntax_problem(root: SgNode) -> str | None:
    """The first syntax error of a parsed file, as a diagnostic's words."""
    error = root.find(kind="ERROR")
    if error is None:
        return None
    line = error.range().start.line + 1
    return f"syntax error at line {line}: imports read as far as the parser recovered"
