"""The files a graph is built from: which names are read, and each file read through the
confined reader and turned into its imports, with a diagnostic for what cannot be read."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from octo.core.errors import OctoError
from octo.core.files.confined import Opened
from octo.core.files.confined import open_below
from octo.core.files.confined import open_confined
from octo.local.graph.imports import Extracted
from octo.local.graph.imports import RawImport
from octo.local.graph.languages.compiled_imports import COMPILED_GRAMMARS
from octo.local.graph.languages.compiled_imports import compiled_imports
from octo.local.graph.languages.functional_imports import FUNCTIONAL_GRAMMARS
from octo.local.graph.languages.functional_imports import functional_imports
from octo.local.graph.languages.interpreted_imports import INTERPRETED_GRAMMARS
from octo.local.graph.languages.interpreted_imports import interpreted_imports
from octo.local.graph.languages.python_imports import python_imports
from octo.local.graph.languages.script_imports import GRAMMARS
from octo.local.graph.languages.script_imports import script_imports
from octo.local.graph.languages.web_links import WEB_GRAMMARS
from octo.local.graph.languages.web_links import web_imports

#: The file names whose imports are read.
SOURCE_SUFFIXES = (
    ".py", ".pyi", *GRAMMARS, *COMPILED_GRAMMARS, *INTERPRETED_GRAMMARS, *FUNCTIONAL_GRAMMARS,
    *WEB_GRAMMARS,
)  # fmt: skip
#: The settings that say what imports name, kept as text.
CONFIG_GLOBS = (
    "package.json", "tsconfig*.json", "jsconfig*.json", "go.mod", "Cargo.toml",
    "compile_commands.json", "pyproject.toml", "setup.cfg", "composer.json", "*.cabal",
    "package.yaml",
)  # fmt: skip
#: Each file suffix's extractor (Python and JS/TS aside) and its grammar table.
_EXTRACTORS: dict[str, tuple[Callable[[bytes, str], Extracted], dict[str, str]]] = {
    suffix: (extractor, grammars)
    for extractor, grammars in (
        (compiled_imports, COMPILED_GRAMMARS),
        (interpreted_imports, INTERPRETED_GRAMMARS),
        (functional_imports, FUNCTIONAL_GRAMMARS),
        (web_imports, WEB_GRAMMARS),
    )
    for suffix in grammars
}
SOURCE_GLOBS = (*(f"*{suffix}" for suffix in SOURCE_SUFFIXES), *CONFIG_GLOBS)
_MAX_CONFIG_BYTES = 1_000_000
#: Larger files are not read (generated bundles, minified code, data).
MAX_FILE_BYTES = 2_000_000
_BINARY_PROBE = 8192


@dataclass(frozen=True, slots=True)
class FileRecord:
    """What one file said when it had this modification time and size."""

    mtime_ns: int
    size: int
    imports: tuple[RawImport, ...]
    problem: str | None = None
    #: Python: it runs as a program (``if __name__ == "__main__":``).
    runs: bool = False
    #: A settings file's text (package.json, tsconfig.json, go.mod, pyproject.toml...).
    text: str | None = None
    #: The package, namespaces or modules the file declares (Go, Java, Kotlin, Scala, C#,
    #: PHP, Elixir, Haskell; several joined by spaces).
    declares: str | None = None

    def as_row(self) -> list[object]:
        rows = [raw.as_row() for raw in self.imports]
        return [self.mtime_ns, self.size, rows, self.problem, self.runs, self.text, self.declares]

    @classmethod
    def of_row(cls, row: list[object]) -> FileRecord:
        mtime_ns, size, rows, problem, runs, text, declares = row
        assert isinstance(rows, list)
        return cls(
            int(str(mtime_ns)),
            int(str(size)),
            tuple(RawImport.of_row(item) for item in rows),
            None if problem is None else str(problem),
            bool(runs),
            None if text is None else str(text),
            None if declares is None else str(declares),
        )


def is_source(rel: str) -> bool:
    """True for a file whose imports are read (not a settings file)."""
    return rel.endswith(SOURCE_SUFFIXES)


def read_records(root: Path, start: Path, files: Sequence[str]) -> dict[str, FileRecord]:
    """Each of ``files`` (relative to ``start``) read and parsed; blocking. The thread opens
    ``start`` itself, so an abandoned thread never reads through its caller's descriptor."""
    records: dict[str, FileRecord] = {}
    with open_confined(root, start, str(start), directory=True) as at:
        for rel in files:
            records[rel] = _record(at, rel)
    return records


def _record(at: Opened, rel: str) -> FileRecord:
    try:
        with open_below(at, rel) as opened:
            mtime, size = opened.stat.st_mtime_ns, opened.stat.st_size
            if not opened.is_file:
                return FileRecord(mtime, size, (), "not a regular file")
            if size > MAX_FILE_BYTES:
                return FileRecord(
                    mtime, size, (), f"larger than {MAX_FILE_BYTES:,} bytes: not read"
                )
            data = bytes(opened.read_bytes(MAX_FILE_BYTES))
    except (OctoError, OSError) as exc:
        return FileRecord(0, 0, (), f"not read: {exc}")
    if b"\0" in data[:_BINARY_PROBE]:
        return FileRecord(mtime, size, (), "binary content: not parsed")
    problem = None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        problem = "not UTF-8: read with replacement characters"
        text = data.decode("utf-8", "replace")
    if not is_source(rel):
        kept = text if size <= _MAX_CONFIG_BYTES else None
        return FileRecord(mtime, size, (), problem, text=kept)
    suffix = "." + rel.rsplit(".", 1)[-1]
    declares = None
    try:
        if suffix in GRAMMARS:
            imports = tuple(script_imports(data, GRAMMARS[suffix]))
            runs = False
        elif suffix in _EXTRACTORS:
            extracted = _extracted(data, suffix)
            imports, declares, runs = tuple(extracted.imports), extracted.declares, extracted.runs
            problem = problem or extracted.problem
        else:
            imports = tuple(python_imports(data))
            runs = b"__name__" in data and b"__main__" in data
    except (RuntimeError, ValueError) as exc:
        return FileRecord(mtime, size, (), f"not parsed: {exc}")
    return FileRecord(mtime, size, imports, problem, runs, declares=declares)


def _extracted(data: bytes, suffix: str) -> Extracted:
    """A file's imports read by its language group's extractor."""
    extractor, grammars = _EXTRACTORS[suffix]
    return extractor(data, grammars[suffix])
