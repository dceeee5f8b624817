"""docs/architecture.md's tree block, written by ``octo docs`` from the modules of the
``octo`` package (every module, folder by folder, the layers' order), so a module added,
moved or removed changes it without a hand edit."""

from __future__ import annotations

import re
from pathlib import Path

#: The packages in the order docs/architecture.md reads them (the layers from the faces
#: down, then the families); a package not named here follows them, by name.
_ORDER = (
    "faces",
    "contract",
    "transports",
    "core",
    "discovery",
    "local",
    "packages",
    "codehosts",
    "lsp",
    "semantic",
)
#: Where the module names start on a line (a longer folder name takes one blank).
_WIDTH = 25
#: The block: the first ``text`` fence under "## The tree".
_BLOCK = re.compile(r"(## The tree\n.*?```text\n)(.*?)(```)", re.S)


def tree_lines(package: Path) -> list[str]:
    """One line per folder of ``package`` holding modules: the folder, then its modules."""
    folders: dict[tuple[str, ...], list[str]] = {}
    for path in package.rglob("*.py"):
        if path.name != "__init__.py" and "__pycache__" not in path.parts:
            folders.setdefault(path.parent.relative_to(package).parts, []).append(path.name)

    def place(parts: tuple[str, ...]) -> tuple[int, tuple[str, ...]]:
        if not parts:
            return -1, parts
        return (_ORDER.index(parts[0]) if parts[0] in _ORDER else len(_ORDER)), parts

    return [
        "/".join((package.name, *parts, "")).ljust(_WIDTH) + " " + " ".join(sorted(folders[parts]))
        for parts in sorted(folders, key=place)
    ]


def architecture_with_tree(text: str, package: Path) -> str:
    """``text`` (docs/architecture.md) with its tree block written anew from ``package``."""
    lines = "\n".join(tree_lines(package))
    return _BLOCK.sub(lambda found: f"{found[1]}{lines}\n{found[3]}", text, count=1)
