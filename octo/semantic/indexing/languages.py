"""Which language a file is in for the index, and the names callers may use for it.

The index's names are ast-grep's where it has a grammar (``python``, ``tsx``, ``csharp``):
the chunker parses a file of such a language through :mod:`octo.core.files.grammars`.
"""

from __future__ import annotations

from pathlib import PurePath

from octo.core.files.grammars import GRAMMAR_BY_EXTENSION

#: File extension (lower case) -> language name used in the index: every extension a grammar
#: parses, under the grammar's name, and the text formats indexed without one.
EXTENSIONS: dict[str, str] = {
    **GRAMMAR_BY_EXTENSION,
    ".zsh": "bash",
    ".tf": "hcl",
    ".hcl": "hcl",
    ".sql": "sql",
    ".md": "markdown",
    ".rst": "rst",
    ".txt": "text",
    ".toml": "toml",
    ".xml": "xml",
}

#: Names without an extension that are still worth indexing.
FILE_NAMES: dict[str, str] = {
    "dockerfile": "dockerfile",
    "makefile": "make",
    "readme": "text",
}

#: What callers may write for a language (the seed's aliases, plus common short names).
ALIASES: dict[str, str] = {
    "terraform": "hcl",
    "tf": "hcl",
    "shell": "bash",
    "sh": "bash",
    "zsh": "bash",
    "py": "python",
    "js": "javascript",
    "ts": "typescript",
    "golang": "go",
    "rs": "rust",
    "c++": "cpp",
    "c#": "csharp",
    "yml": "yaml",
    "md": "markdown",
}


def language_of(path: str) -> str | None:
    """The index language of ``path``, or None for files octo does not index."""
    name = PurePath(path).name.lower()
    return EXTENSIONS.get(PurePath(name).suffix) or FILE_NAMES.get(name)


def canonical_language(name: str) -> str:
    """A caller's language name in the index's terms (``terraform`` -> ``hcl``)."""
    lowered = name.strip().lower()
    return ALIASES.get(lowered, lowered)
