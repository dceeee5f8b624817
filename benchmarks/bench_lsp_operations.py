"""The symbol operations of bench_lsp.py: each new LSP operation through octo and as the raw
request, and localSearchStructure over the standard library vs. the ast-grep CLI."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import sysconfig
import time
from collections.abc import Awaitable
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

from octo import Gateway
from octo.core.config import Config

PROJECT = Path(__file__).resolve().parent.parent / "tests" / "lsp" / "fixtures" / "py_project"
STDLIB = Path(sysconfig.get_paths()["stdlib"])
ROUNDS = 50
#: Files the raw client opens besides main.py and shapes.py.
OPENED = ("kinds.py", "planted_error.py")
KINDS = (PROJECT / "kinds.py").as_uri()
ERROR = (PROJECT / "planted_error.py").as_uri()
PATTERN = "print($$$ARGS, file=sys.stderr)"

#: name -> (octo tool, query, raw requests: (method, params) in order, capability).
OPERATIONS: dict[str, tuple[str, dict[str, Any], list[tuple[str, dict[str, Any]]], str]] = {
    "document symbols": (
        "lspDocumentSymbols",
        {"uri": "kinds.py"},
        [("textDocument/documentSymbol", {"textDocument": {"uri": KINDS}})],
        "documentSymbolProvider",
    ),
    "workspace symbols": (
        "lspWorkspaceSymbols",
        {"query": "Puppy"},
        [("workspace/symbol", {"query": "Puppy"})],
        "workspaceSymbolProvider",
    ),
    "hover": (
        "lspHover",
        {"uri": "kinds.py", "symbolName": "Animal", "lineHint": 12},
        [
            (
                "textDocument/hover",
                {"textDocument": {"uri": KINDS}, "position": {"line": 11, "character": 6}},
            )
        ],
        "hoverProvider",
    ),
    "implementation": (
        "lspGotoDefinition",
        {"uri": "kinds.py", "symbolName": "speak", "lineHint": 16, "kind": "implementation"},
        [
            (
                "textDocument/implementation",
                {"textDocument": {"uri": KINDS}, "position": {"line": 15, "character": 8}},
            )
        ],
        "implementationProvider",
    ),
    "type hierarchy": (
        "lspTypeHierarchy",
        {
            "uri": "kinds.py",
            "symbolName": "Dog",
            "lineHint": 20,
            "direction": "subtypes",
            "depth": 1,
        },
        [
            (
                "textDocument/prepareTypeHierarchy",
                {"textDocument": {"uri": KINDS}, "position": {"line": 19, "character": 6}},
            ),
            ("typeHierarchy/subtypes", {}),
        ],
        "typeHierarchyProvider",
    ),
    "diagnostics (pull)": (
        "lspDiagnostics",
        {"uri": "planted_error.py"},
        [("textDocument/diagnostic", {"textDocument": {"uri": ERROR}})],
        "diagnosticProvider",
    ),
}


async def median_ms(call: Callable[[], Awaitable[Any]]) -> float:
    """Median milliseconds of ROUNDS calls, after one unmeasured call."""
    await call()
    samples = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


async def octo_operations(server: str) -> dict[str, float]:
    """Warm median of each operation through octo (one warm gateway)."""
    env = dict(os.environ, OCTO_LSP_PYTHON_SERVERS=server)
    found: dict[str, float] = {}
    async with Gateway(Config.from_env(env), roots=[PROJECT]) as gw:
        for name, (tool, query, _raw, _capability) in OPERATIONS.items():
            first = (await gw.call(tool, [query])).to_wire()["results"][0]
            if first["status"] == "error":
                continue
            found[name] = await median_ms(lambda t=tool, q=query: gw.call(t, [q]))
    return found


async def raw_operations(client: LanguageClient, capabilities: Any) -> dict[str, float]:
    """Warm median of each operation's raw requests on an initialized pygls client (the
    server's ``capabilities`` say which it offers)."""
    found: dict[str, float] = {}
    for name, (_tool, _query, requests, capability) in OPERATIONS.items():
        if not getattr(capabilities, _snake(capability), None):
            continue

        async def run(requests: list[tuple[str, dict[str, Any]]] = requests) -> None:
            previous: Any = None
            converter = client.protocol._converter
            for method, raw in requests:
                if method.startswith("typeHierarchy/"):
                    raw = {"item": previous[0]}
                # pygls sends typed params: the JSON structured as the method's params type.
                params = converter.structure(raw, lsp.METHOD_TO_TYPES[method][2])
                previous = await client.protocol.send_request_async(method, params)
                previous = converter.unstructure(previous)

        found[name] = await median_ms(run)
    return found


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def _cli() -> str | None:
    beside = Path(sys.executable).parent / "ast-grep"
    return str(beside) if beside.exists() else shutil.which("ast-grep")


async def structure_versus_cli() -> str:
    """One line: localSearchStructure over the standard library vs. the ast-grep CLI."""
    cli = _cli()
    if cli is None:
        return (
            "localSearchStructure vs ast-grep CLI: skipped (no ast-grep CLI; "
            ".venv/bin/pip install ast-grep-cli for this baseline)"
        )
    argv = [cli, "run", "--pattern", PATTERN, "--lang", "python", "--json=compact"]
    argv += ["--globs", "!site-packages", str(STDLIB)]
    start = time.perf_counter()
    done = await anyio.run_process(argv, check=False)
    cli_s = time.perf_counter() - start
    cli_matches = len(json.loads(done.stdout or b"[]"))
    query = {"pattern": PATTERN, "language": "python", "exclude": ["site-packages"]}
    config = Config.from_env(dict(os.environ, OCTO_QUERY_TIMEOUT="600"))
    async with Gateway(config, roots=[STDLIB]) as gw:
        start = time.perf_counter()
        result = (await gw.call("localSearchStructure", [query])).to_wire()["results"][0]
        octo_s = time.perf_counter() - start
    octo_matches = result["data"]["totalMatches"]
    return (
        f"localSearchStructure over the standard library ({PATTERN!r}): octo {octo_s:.2f} s"
        f" ({octo_matches} matches), ast-grep CLI {cli_s:.2f} s ({cli_matches} matches),"
        f" ratio {octo_s / cli_s:.2f}x"
    )
