"""Which language a file is in, by the identifiers the Language Server Protocol names
languages with (``python``, ``typescriptreact``, ``shellscript``): the names the LSP family
opens files under, and what localGetFileContent says a file is in.

The extension decides; a file without a known one is judged by its name (``Dockerfile``) and
its first line (a shebang, ``<?php``, ``<?xml``).
"""

from __future__ import annotations

import re
from pathlib import PurePath

#: File extension (lower case) -> LSP language identifier.
BY_EXTENSION: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "typescriptreact",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascriptreact",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".scala": "scala",
    ".sc": "scala",
    ".sbt": "scala",
    ".swift": "swift",
    ".cs": "csharp",
    ".fs": "fsharp",
    ".rb": "ruby",
    ".rake": "ruby",
    ".gemspec": "ruby",
    ".php": "php",
    ".phtml": "php",
    ".pl": "perl",
    ".pm": "perl",
    ".lua": "lua",
    ".r": "r",
    ".dart": "dart",
    ".ex": "elixir",
    ".exs": "elixir",
    ".erl": "erlang",
    ".hs": "haskell",
    ".lhs": "haskell",
    ".zig": "zig",
    ".zon": "zig",
    ".ml": "ocaml",
    ".mli": "ocaml",
    ".f": "fortran",
    ".for": "fortran",
    ".f90": "fortran",
    ".f95": "fortran",
    ".f03": "fortran",
    ".f08": "fortran",
    ".dockerfile": "dockerfile",
    ".clj": "clojure",
    ".sh": "shellscript",
    ".bash": "shellscript",
    ".zsh": "shellscript",
    ".ps1": "powershell",
    ".bat": "bat",
    ".sql": "sql",
    ".html": "html",
    ".htm": "html",
    ".css": "css",
    ".scss": "scss",
    ".less": "less",
    ".vue": "vue",
    ".svelte": "svelte",
    ".json": "json",
    ".jsonc": "jsonc",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".xml": "xml",
    ".md": "markdown",
    ".rst": "restructuredtext",
    ".tex": "latex",
    ".ini": "ini",
    ".tf": "terraform",
    ".proto": "proto",
    ".graphql": "graphql",
    ".txt": "plaintext",
}

#: Whole file names (lower case) that say their language.
BY_NAME: dict[str, str] = {
    "dockerfile": "dockerfile",
    "containerfile": "dockerfile",
    "makefile": "makefile",
    "gnumakefile": "makefile",
    "cmakelists.txt": "cmake",
    "gemfile": "ruby",
    "rakefile": "ruby",
}

#: A shebang's interpreter (its name without a version) -> LSP language identifier.
BY_INTERPRETER: dict[str, str] = {
    "python": "python",
    "node": "javascript",
    "deno": "typescript",
    "bun": "typescript",
    "ts-node": "typescript",
    "sh": "shellscript",
    "bash": "shellscript",
    "zsh": "shellscript",
    "dash": "shellscript",
    "ksh": "shellscript",
    "ruby": "ruby",
    "perl": "perl",
    "php": "php",
    "lua": "lua",
    "rscript": "r",
    "pwsh": "powershell",
}

#: A version at the end of an interpreter's name (``python3.12``).
_VERSION = re.compile(r"[\d.]+$")


def language_of(path: PurePath | str, first_line: str = "") -> str | None:
    """The LSP language identifier of the file at ``path`` whose text starts with
    ``first_line``; None when neither says."""
    name = PurePath(path).name.lower()
    suffix = PurePath(name).suffix
    known = BY_EXTENSION.get(suffix) or BY_NAME.get(name)
    if known is not None:
        return known
    if first_line.startswith("<?php"):
        return "php"
    if first_line.startswith("<?xml"):
        return "xml"
    return _interpreted(first_line)


def _interpreted(first_line: str) -> str | None:
    """The language of a shebang's interpreter (``#!/bin/bash``, ``#!/usr/bin/env -S
    python3 -u``)."""
    words = first_line[2:].split() if first_line.startswith("#!") else []
    if words and PurePath(words[0]).name == "env":
        # env's options and variable settings come before the program.
        words = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
    if not words:
        return None
    return BY_INTERPRETER.get(_VERSION.sub("", PurePath(words[0]).name).lower())
