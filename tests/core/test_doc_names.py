"""Every file or module the docs (docs/*.md) and the module docstrings name exists: a name
left behind by a move or a rename (``secret_shapes.py``, ``semantic/walk.py``) fails here.

Checked: names of Python files (``walk.py``, ``semantic/indexing/walk.py``: some file of the
repository ends with it), paths under the repository's own folders (``docs/tools.md``), and
modules named ``octo.<family>...`` (a module or package, or a name it defines). Not checked:
docs/tools.md (generated from the tools' examples, whose paths are the user's), and other
names that are the user's (``.npmrc``, ``pyrightconfig.json``), loggers and hosts
(``octo.calls``, ``octo.example.com``).
"""

from __future__ import annotations

import ast
import functools
import importlib
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OCTO = ROOT / "octo"
#: The repository's own top folders: a path starting with one names a file of octo.
OWN = ("octo/", "tests/", "docs/", "benchmarks/", ".ci/")
FILE_NAME = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.(?:py|md|toml|json))\b")
MODULE_NAME = re.compile(r"\bocto(?:\.\w+)+")


@functools.cache
def _files() -> frozenset[str]:
    """The repository's files, each also by every tail of its path (``walk.py``,
    ``indexing/walk.py``, ``semantic/indexing/walk.py`` for one file)."""
    skipped = {".git", ".venv", "node_modules", "__pycache__"}
    names: set[str] = set()
    for path in ROOT.rglob("*"):
        parts = path.relative_to(ROOT).parts
        if path.is_file() and not skipped & set(parts):
            names.update("/".join(parts[start:]) for start in range(len(parts)))
    return frozenset(names)


def _docstring(source: str) -> str | None:
    """The module docstring of ``source``, from its first statement alone (parsing every
    module whole cost most of this test)."""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            first = "".join(source.splitlines(keepends=True)[: token.end[0]])
            break
    try:
        return ast.get_docstring(ast.parse(first))
    except SyntaxError:  # a compound statement's first line: no docstring
        return None


@functools.cache
def _texts() -> list[tuple[str, str]]:
    texts = [
        (doc.relative_to(ROOT).as_posix(), doc.read_text(encoding="utf-8"))
        for doc in sorted((ROOT / "docs").glob("*.md"))
        if doc.name != "tools.md"
    ]
    for module in sorted(OCTO.rglob("*.py")):
        docstring = _docstring(module.read_text(encoding="utf-8"))
        if docstring:
            texts.append((module.relative_to(ROOT).as_posix(), docstring))
    return texts


def _missing_file(name: str, files: frozenset[str]) -> bool:
    if not name.endswith(".py") and not name.startswith(OWN):
        return False  # a file of the user's
    return name not in files


def _missing_module(name: str) -> bool:
    parts = name.split(".")
    if not ((OCTO / f"{parts[1]}.py").exists() or (OCTO / parts[1]).is_dir()):
        return False  # a logger or a host name, not a module
    for end in range(len(parts), 1, -1):
        path = OCTO.parent.joinpath(*parts[:end])
        if path.with_suffix(".py").exists() or (path / "__init__.py").exists():
            rest = parts[end:]
            if not rest:
                return False
            found: object = importlib.import_module(".".join(parts[:end]))
            for attribute in rest:  # a class's method names two: ``Class.method``
                if not hasattr(found, attribute):
                    return True
                found = getattr(found, attribute)
            return False
    return True


def test_docs_and_docstrings_name_only_what_exists() -> None:
    files = _files()
    stale = [
        f"{where}: {name}"
        for where, text in _texts()
        for name in sorted(set(FILE_NAME.findall(text)))
        if _missing_file(name, files)
    ] + [
        f"{where}: {name}"
        for where, text in _texts()
        for name in sorted(set(MODULE_NAME.findall(text)))
        if _missing_module(name)
    ]
    assert not stale, "\n".join(stale)


@pytest.mark.parametrize("name", ["octo/nowhere.py", "secret_shapes.py", "semantic/walk.py"])
def test_a_stale_file_name_is_found(name: str) -> None:
    assert _missing_file(name, _files())


@pytest.mark.parametrize(
    "name",
    ["octo.core.nowhere", "octo.core.budget.nothing_here", "octo.core.queries.ToolResult.nothing"],
)
def test_a_stale_module_name_is_found(name: str) -> None:
    assert _missing_module(name)
