"""Which language a file is in for the index, and the names callers may use for it.

The index's names are ast-grep's where it has a grammar (``python``, ``tsx``, ``csharp``):
the chunker parses a file of such a language through :mod:`octo.core.files.grammars`.
"""

from __future__ import annotations

from pathlib import PurePath

#: File extension (lower case) -> language name used in the index.
EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".php": "php",
    ".kt": "kotlin",
    ".swift": "swift",
    ".scala": "scala",
    ".lua": "lua",
    ".ex": "elixir",
    ".exs": "elixir",
    ".hs": "haskell",
    ".sh": "bash",
    ".bash": "bash",
    ".zsh": "bash",
    ".tf": "hcl",
    ".hcl": "hcl",
    ".sql": "sql",
    ".md": "markdown",
    ".rst": "rst",
    ".txt": "text",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".json": "json",
    ".html": "html",
    ".htm": "html",
    ".css": "css",
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
