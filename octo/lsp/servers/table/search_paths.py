"""Where a project's own configuration would send a Python language server to look for
modules, and octo's search paths instead.

A project (a clone above all) may name any folder as a search path: ``extraPaths`` (and
``stubPath``, ``venvPath``, ``typeshedPath``, per execution environment too) in
``pyrightconfig.json`` or ``[tool.pyright]`` / ``[tool.basedpyright]`` of ``pyproject.toml``;
``extra-paths``, ``python`` and ``typeshed`` of ``[tool.ty.environment]`` or ``ty.toml``.
Pointed outside the allowed roots, hover would show that folder's constants and definitions
would name its files. ty then runs with octo's settings, which take precedence over the
project's; pyright and basedpyright let a configuration file win over any setting a client
sends, so they are not started on such a project (the next server answers).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterable
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from octo.lsp.servers.wire.client import UnsupportedOperationError

#: The Python servers whose search paths a project's configuration sets.
PYTHON_SERVERS = frozenset({"ty", "basedpyright", "pyright"})
#: Servers whose settings from octo override the project's configuration.
OVERRIDABLE = frozenset({"ty"})

_PYRIGHT_KEYS = ("extraPaths", "stubPath", "venvPath", "typeshedPath")
_TY_KEYS = ("extra-paths", "python", "typeshed")

#: ty's configuration from octo: no search path beyond the workspace, the interpreter's own
#: environment and ty's bundled typeshed. ty takes a configuration file named in its settings
#: over any it discovers (settings inline would be merged with the project's lists).
TY_CONFIGURATION = "[environment]\nextra-paths = []\n"


def _ty_settings(directory: Path) -> dict[str, Any]:
    """ty's ``ty`` section, naming octo's configuration file (written in ``directory``)."""
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    file = directory / "ty-search-paths.toml"
    if not file.is_file() or file.read_text(encoding="utf-8") != TY_CONFIGURATION:
        file.write_text(TY_CONFIGURATION, encoding="utf-8")
    return {"ty": {"configurationFile": str(file)}}


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return []


def _pyright_paths(section: Mapping[str, Any]) -> list[str]:
    found = [path for key in _PYRIGHT_KEYS for path in _strings(section.get(key))]
    for environment in section.get("executionEnvironments") or []:
        if isinstance(environment, Mapping):
            found += _strings(environment.get("extraPaths")) + _strings(environment.get("root"))
    return found


def _ty_paths(section: Mapping[str, Any]) -> list[str]:
    environment = section.get("environment")
    if not isinstance(environment, Mapping):
        return []
    return [path for key in _TY_KEYS for path in _strings(environment.get(key))]


def _read(path: Path) -> Mapping[str, Any]:
    """A configuration file as data; empty when absent or unreadable (its server fails on
    it as it would anyway)."""
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, Mapping) else {}


def _tool(data: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    tool = data.get("tool")
    section = tool.get(name) if isinstance(tool, Mapping) else None
    return section if isinstance(section, Mapping) else {}


def configured_paths(workspace: Path) -> dict[str, list[str]]:
    """The search paths the workspace's configuration names, by server family (``ty``,
    ``pyright``), as written (blocking)."""
    pyproject = _read(workspace / "pyproject.toml")
    pyright = _pyright_paths(_read(workspace / "pyrightconfig.json"))
    pyright += _pyright_paths(_tool(pyproject, "pyright"))
    pyright += _pyright_paths(_tool(pyproject, "basedpyright"))
    ty = _ty_paths(_tool(pyproject, "ty")) + _ty_paths(_read(workspace / "ty.toml"))
    return {"ty": ty, "pyright": pyright}


def _outside(workspace: Path, paths: Iterable[str], allowed_root: Path) -> list[str]:
    outside = []
    for raw in paths:
        try:
            real = (workspace / Path(raw).expanduser()).resolve()
        except (OSError, RuntimeError):
            outside.append(raw)
            continue
        if not (real == allowed_root or real.is_relative_to(allowed_root)):
            outside.append(raw)
    return outside


def outside_search_paths(server_id: str, workspace: Path, allowed_root: Path) -> list[str]:
    """The search paths ``server_id`` would take from ``workspace``'s configuration that
    lie outside ``allowed_root`` (blocking)."""
    if server_id not in PYTHON_SERVERS:
        return []
    configured = configured_paths(workspace)
    family = "ty" if server_id == "ty" else "pyright"
    return _outside(workspace, configured[family], allowed_root.resolve())


class SearchPathsRefusedError(UnsupportedOperationError):
    """The project's configuration sends this server outside the allowed roots, and octo
    cannot override it: the server is not started there."""


def octo_search_paths(
    server_id: str, workspace: Path, allowed_root: Path, own_files: Path
) -> dict[str, Any]:
    """The settings (by section) that give ``server_id`` octo's search paths on
    ``workspace`` (blocking; ``own_files``: where octo keeps its configuration files);
    raises SearchPathsRefusedError where none can."""
    outside = outside_search_paths(server_id, workspace, allowed_root)
    if server_id == "ty" and outside:
        return _ty_settings(own_files)
    if outside:
        raise SearchPathsRefusedError(
            f"{server_id} is not started on {workspace.name}: its configuration points"
            f" {len(outside)} of the server's search paths outside the allowed roots, and"
            f" {server_id} lets a configuration file win over octo's settings",
            hints=["ty runs with octo's search paths there: OCTO_LSP_PYTHON_SERVERS=ty."],
        )
    return {}
