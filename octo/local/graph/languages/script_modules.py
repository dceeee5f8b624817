"""JavaScript and TypeScript imports resolved to a root's files: relative paths with
extension and index-file resolution, ``tsconfig.json`` ``baseUrl`` and ``paths`` (through
``extends``), and the ``exports``/``module``/``main`` of the root's own packages
(workspaces); any other bare name is an external package."""

from __future__ import annotations

import json
import posixpath
from collections.abc import Mapping
from typing import Any

from octo.local.graph.graph import Edge
from octo.local.graph.imports import RawImport

SCRIPT_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
#: The settings of a TypeScript or JavaScript project, in the order they are looked for.
_PROJECT_FILES = ("tsconfig.json", "jsconfig.json")
#: Tried after a path without its suffix, in TypeScript's order.
_TRIED = (".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
#: Node's built-in modules (named bare or as ``node:x``).
NODE_BUILTINS = frozenset(
    {
        "assert", "buffer", "child_process", "cluster", "crypto", "dgram", "dns", "events",
        "fs", "fs/promises", "http", "http2", "https", "module", "net", "os", "path",
        "perf_hooks", "process", "querystring", "readline", "stream", "string_decoder",
        "timers", "tls", "tty", "url", "util", "v8", "vm", "worker_threads", "zlib",
    }
)  # fmt: skip


def read_jsonc(text: str) -> Any:
    """JSON with comments and trailing commas (tsconfig.json), read as JSON."""
    kept: list[str] = []
    index, size = 0, len(text)
    while index < size:
        char = text[index]
        if char == '"':
            end = index + 1
            while end < size and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            kept.append(text[index : end + 1])
            index = end + 1
        elif text.startswith("//", index):
            index = text.find("\n", index)
            index = size if index < 0 else index
        elif text.startswith("/*", index):
            end = text.find("*/", index + 2)
            index = size if end < 0 else end + 2
        elif char in "}]":
            # A trailing comma before a closing bracket is dropped.
            while kept and kept[-1].strip() in ("", ","):
                if kept.pop().strip() == ",":
                    break
            kept.append(char)
            index += 1
        else:
            kept.append(char)
            index += 1
    return json.loads("".join(kept))


class _TsOptions:
    """The ``baseUrl`` and ``paths`` of one tsconfig.json, its ``extends`` followed."""

    def __init__(self, base_url: str | None, paths: list[tuple[str, list[str]]]) -> None:
        self.base_url = base_url
        self.paths = paths


class ScriptModules:
    """The script files of a root and the settings that say what their imports name."""

    def __init__(self, files: frozenset[str], configs: Mapping[str, str]) -> None:
        self.files = files
        self.configs = configs
        self.problems: list[str] = []
        self._options: dict[str, _TsOptions | None] = {}
        self.packages: dict[str, tuple[str, dict[str, Any]]] = {}
        for rel, text in configs.items():
            if posixpath.basename(rel) != "package.json":
                continue
            manifest = self._json(rel, text)
            if isinstance(manifest, dict) and isinstance(manifest.get("name"), str):
                self.packages[manifest["name"]] = (posixpath.dirname(rel), manifest)
        # Every tsconfig.json read now: its problems are diagnostics even when no import
        # consults it.
        for rel in sorted(configs):
            if posixpath.basename(rel) in _PROJECT_FILES:
                self._ts_options(posixpath.dirname(rel))

    def entry_points(self) -> list[str]:
        """The files the root's package.json files name (exports, module, main, bin)."""
        found = []
        for folder, manifest in self.packages.values():
            for value in _manifest_targets(manifest):
                target = self._file(posixpath.normpath(posixpath.join(folder, value)))
                if target is not None:
                    found.append(target)
        return found

    def edges(self, rel: str, imports: tuple[RawImport, ...]) -> tuple[list[Edge], list[str]]:
        """The edges of ``rel``'s imports, and what could not be resolved."""
        edges: list[Edge] = []
        problems: list[str] = []
        for raw in imports:
            target, package, problem = self._resolve(rel, raw.spec)
            if problem is not None:
                problems.append(f"{rel}:{raw.line}: {problem}")
            if target is None and package is None and _is_asset(raw.spec):
                continue
            edges.append(Edge(rel, target, package, raw.line, raw.text, raw.flags, raw.spec))
        return edges, problems

    def _resolve(self, rel: str, spec: str) -> tuple[str | None, str | None, str | None]:
        if spec.startswith((".", "/")):
            if spec.startswith("/"):
                return None, None, f"absolute import '{spec}' not followed"
            base = posixpath.normpath(posixpath.join(posixpath.dirname(rel), spec))
            if base == ".." or base.startswith("../"):
                return None, None, f"'{spec}' is outside the root"
            return self._file(base), None, None
        options = self._ts_options(posixpath.dirname(rel))
        if options is not None:
            for pattern, targets in options.paths:
                star = _star(pattern, spec)
                if star is None:
                    continue
                for target in targets:
                    found = self._file(posixpath.normpath(target.replace("*", star, 1)))
                    if found is not None:
                        return found, None, None
            if options.base_url is not None:
                found = self._file(posixpath.normpath(posixpath.join(options.base_url, spec)))
                if found is not None:
                    return found, None, None
        name = _package_name(spec)
        workspace = self.packages.get(name)
        if workspace is not None:
            folder, manifest = workspace
            sub = spec[len(name) :].lstrip("/")
            if sub:
                exported = _subpath_targets(manifest.get("exports"), sub)
                targets = [*exported, sub]
            else:
                targets = [*_manifest_targets(manifest, main_only=True), "index"]
            for target in targets:
                found = self._file(posixpath.normpath(posixpath.join(folder, target)))
                if found is not None:
                    return found, None, None
            return None, None, f"'{spec}' not found in the workspace package {name}"
        return None, name.removeprefix("node:"), None

    def _file(self, base: str) -> str | None:
        files = self.files
        if base in files and base.endswith((*SCRIPT_SUFFIXES, ".json", ".css")):
            return base
        stem = base
        for suffix in (".js", ".jsx", ".mjs", ".cjs"):
            if base.endswith(suffix):
                stem = base[: -len(suffix)]
                break
        for candidate in (stem, base):
            for suffix in _TRIED:
                if candidate + suffix in files:
                    return candidate + suffix
        for suffix in _TRIED:
            index = f"{base}/index{suffix}" if base != "." else f"index{suffix}"
            if index in files:
                return index
        return None

    def _ts_options(self, folder: str) -> _TsOptions | None:
        if folder in self._options:
            return self._options[folder]
        names = [f"{folder}/{name}" if folder else name for name in _PROJECT_FILES]
        config = next((name for name in names if name in self.configs), None)
        if config is not None:
            found = self._load(config, [])
        elif folder:
            found = self._ts_options(posixpath.dirname(folder))
        else:
            found = None
        self._options[folder] = found
        return found

    def _load(self, config: str, chain: list[str]) -> _TsOptions | None:
        """A tsconfig's options, its ``extends`` followed (a loop or a missing file is a
        problem, and the chain stops there)."""
        if config in chain:
            self.problems.append(f"{config}: extends itself (through {' -> '.join(chain)})")
            return None
        text = self.configs.get(config)
        if text is None:
            self.problems.append(f"{chain[-1]}: extends {config}, which is not in the root")
            return None
        settings = self._json(config, text)
        if not isinstance(settings, dict):
            return None
        folder = posixpath.dirname(config)
        inherited = _TsOptions(None, [])
        extends = settings.get("extends")
        for parent in [extends] if isinstance(extends, str) else extends or []:
            if not isinstance(parent, str):
                continue
            if not parent.startswith("."):
                self.problems.append(f"{config}: extends the package {parent}: not followed")
                continue
            path = posixpath.normpath(posixpath.join(folder, parent))
            if not path.endswith(".json"):
                path += ".json"
            if path == ".." or path.startswith("../"):
                self.problems.append(f"{config}: extends {parent}, outside the root")
                continue
            found = self._load(path, [*chain, config])
            if found is not None:
                inherited = found
        options = settings.get("compilerOptions")
        options = options if isinstance(options, dict) else {}
        base_url = inherited.base_url
        if isinstance(options.get("baseUrl"), str):
            base_url = posixpath.normpath(posixpath.join(folder, options["baseUrl"]))
        paths = inherited.paths
        if isinstance(options.get("paths"), dict):
            anchor = base_url if base_url is not None else folder
            paths = [
                (pattern, [posixpath.join(anchor, t) for t in targets if isinstance(t, str)])
                for pattern, targets in options["paths"].items()
                if isinstance(targets, list)
            ]
        return _TsOptions(base_url, paths)

    def _json(self, rel: str, text: str) -> Any:
        try:
            return read_jsonc(text)
        except ValueError as exc:
            self.problems.append(f"{rel}: not JSON ({exc})")
            return None


def _subpath_targets(exports: Any, sub: str) -> list[str]:
    """The files a package's ``exports`` map ``./sub`` to (``./*`` patterns too)."""
    if not isinstance(exports, dict):
        return []
    found: list[str] = []
    for key, value in exports.items():
        star = _star(key, f"./{sub}") if isinstance(key, str) else None
        if star is None:
            continue
        targets = [value] if isinstance(value, str) else []
        if isinstance(value, dict):
            targets = [v for v in value.values() if isinstance(v, str)]
        found += [target.replace("*", star, 1) for target in targets]
    return found


def _star(pattern: str, spec: str) -> str | None:
    """What ``*`` in a paths pattern stands for in ``spec`` ("" for an exact match)."""
    if "*" not in pattern:
        return "" if pattern == spec else None
    prefix, suffix = pattern.split("*", 1)
    if spec.startswith(prefix) and spec.endswith(suffix) and len(spec) >= len(pattern) - 1:
        return spec[len(prefix) : len(spec) - len(suffix)]
    return None


def _package_name(spec: str) -> str:
    parts = spec.split("/")
    return "/".join(parts[:2]) if spec.startswith("@") else parts[0]


def _is_asset(spec: str) -> bool:
    """An import of a file no script is (a stylesheet, an image)."""
    name = spec.rsplit("/", 1)[-1]
    return "." in name and not name.endswith((*SCRIPT_SUFFIXES, ".json"))


def _manifest_targets(manifest: dict[str, Any], *, main_only: bool = False) -> list[str]:
    """The files a package.json names: ``exports`` (its "." entry), ``module``, ``main``,
    and (unless ``main_only``) ``bin``."""
    found: list[str] = []

    def strings(value: Any) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for key, inner in value.items():
                if not main_only or key in (".", "import", "require", "default", "types", "node"):
                    strings(inner)
        elif isinstance(value, list):
            for inner in value:
                strings(inner)

    strings(manifest.get("exports"))
    for key in ("module", "main"):
        strings(manifest.get(key))
    if not main_only:
        strings(manifest.get("bin"))
    return found
