"""LSP overhead: warm goto-definition, references and the symbol operations (outline,
workspace symbols, hover, implementation, type hierarchy, diagnostics) through octo vs.
straight to the server; and localSearchStructure over the standard library vs. the ast-grep
CLI on the same pattern.

Run: .venv/bin/python benchmarks/bench_lsp.py [server]   (default basedpyright; also ty)
Prints the cold first answer, warm medians both ways, octo's overhead, and the pool's RSS.
The structural-search baseline needs the ast-grep CLI: .venv/bin/pip install ast-grep-cli
(for the benchmark only); without it that comparison prints one line saying so.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from bench_lsp_operations import OPENED
from bench_lsp_operations import median_ms
from bench_lsp_operations import octo_operations
from bench_lsp_operations import raw_operations
from bench_lsp_operations import structure_versus_cli
from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient
from pygls.protocol import default_converter

from octo import Gateway
from octo.core.config import Config
from octo.lsp.servers.table.commands import find_servers

PROJECT = Path(__file__).resolve().parent.parent / "tests" / "lsp" / "fixtures" / "py_project"
ROUNDS = 50
DEFINITION = {"uri": "main.py", "symbolName": "total_area", "lineHint": 1, "contextLines": 2}
REFERENCES = {"uri": "shapes.py", "symbolName": "area", "lineHint": 9, "contextLines": 2}


def _server_groups() -> list[int]:
    """Our children that lead their own process group: the language servers octo started."""
    groups = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and int(fields[2]) == int(entry):
            groups.append(int(entry))
    return groups


def _rss_mb(groups: list[int]) -> float:
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) not in groups:
                continue
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total / 1024


async def through_octo(server: str) -> tuple[float, float, float, float]:
    env = dict(os.environ, OCTO_LSP_PYTHON_SERVERS=server)
    async with Gateway(Config.from_env(env), roots=[PROJECT]) as gw:
        start = time.perf_counter()
        first = await gw.lsp_goto_definition([DEFINITION])
        cold = time.perf_counter() - start
        assert first.results[0].status == "success", first.to_wire()
        await gw.lsp_find_references([REFERENCES])
        definition = await median_ms(lambda: gw.lsp_goto_definition([DEFINITION]))
        references = await median_ms(lambda: gw.lsp_find_references([REFERENCES]))
        rss = _rss_mb(_server_groups())
    return cold, definition, references, rss


def _converter() -> Any:
    # The notes' recipe: cattrs 25+ cannot structure notebook selectors with cells.
    converter = default_converter()
    for cls in (lsp.NotebookDocumentSyncOptions, lsp.NotebookDocumentSyncRegistrationOptions):
        converter.register_structure_hook(cls, lambda obj, _: None)
    return converter


async def straight(server: str) -> tuple[tuple[float, float], dict[str, float]]:
    command = find_servers("python", dict(os.environ, OCTO_LSP_PYTHON_SERVERS=server))[0]
    client = LanguageClient("bench", "0", converter_factory=_converter)
    client.feature(lsp.WORKSPACE_CONFIGURATION)(lambda params: [None for _ in params.items])
    client.feature(lsp.WINDOW_WORK_DONE_PROGRESS_CREATE)(lambda params: None)
    client.feature(lsp.CLIENT_REGISTER_CAPABILITY)(lambda params: None)
    for method in (lsp.PROGRESS, lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, lsp.WINDOW_LOG_MESSAGE):
        client.feature(method)(lambda params: None)
    await client.start_io(*command.argv, cwd=str(PROJECT), start_new_session=True)
    try:
        initialized = await client.initialize_async(
            lsp.InitializeParams(
                process_id=os.getpid(),
                root_uri=PROJECT.as_uri(),
                workspace_folders=[lsp.WorkspaceFolder(uri=PROJECT.as_uri(), name="p")],
                # The capabilities octo sends: with workDoneProgress, pyright-family servers
                # report progress during references, which costs them time.
                capabilities=lsp.ClientCapabilities(
                    window=lsp.WindowClientCapabilities(work_done_progress=True),
                    workspace=lsp.WorkspaceClientCapabilities(configuration=True),
                ),
            )
        )
        client.initialized(lsp.InitializedParams())
        client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={}))
        for name in ("main.py", "shapes.py", *OPENED):
            path = PROJECT / name
            client.text_document_did_open(
                lsp.DidOpenTextDocumentParams(
                    text_document=lsp.TextDocumentItem(
                        uri=path.as_uri(), language_id="python", version=1, text=path.read_text()
                    )
                )
            )
        main = lsp.TextDocumentIdentifier(uri=(PROJECT / "main.py").as_uri())
        shapes = lsp.TextDocumentIdentifier(uri=(PROJECT / "shapes.py").as_uri())
        definition = lsp.DefinitionParams(text_document=main, position=lsp.Position(0, 21))
        references = lsp.ReferenceParams(
            text_document=shapes,
            position=lsp.Position(8, 4),
            context=lsp.ReferenceContext(include_declaration=True),
        )
        await client.text_document_definition_async(definition)
        await client.text_document_references_async(references)
        medians = (
            await median_ms(lambda: client.text_document_definition_async(definition)),
            await median_ms(lambda: client.text_document_references_async(references)),
        )
        return medians, await raw_operations(client, initialized.capabilities)
    finally:
        await client.shutdown_async(None)
        client.exit(None)
        with anyio.move_on_after(3):
            await client._server.wait()  # type: ignore[union-attr]
        if client._server is not None and client._server.returncode is None:
            os.killpg(client._server.pid, 9)
        await client.stop()


async def main() -> None:
    server = sys.argv[1] if len(sys.argv) > 1 else "basedpyright"
    cold, octo_def, octo_refs, rss = await through_octo(server)
    octo_ops = await octo_operations(server)
    (raw_def, raw_refs), raw_ops = await straight(server)
    print(f"lsp[{server}] cold first goto-definition through octo: {cold * 1000:.0f} ms")
    print(
        f"lsp[{server}] warm goto-definition: octo {octo_def:.2f} ms, raw pygls {raw_def:.2f} ms,"
        f" overhead {octo_def - raw_def:+.2f} ms (median of {ROUNDS})"
    )
    print(
        f"lsp[{server}] warm references: octo {octo_refs:.2f} ms, raw pygls {raw_refs:.2f} ms,"
        f" overhead {octo_refs - raw_refs:+.2f} ms (median of {ROUNDS})"
    )
    print(f"lsp[{server}] pool RSS: {rss:.0f} MB (1 server, process group)")
    for name, octo_ms in octo_ops.items():
        raw_ms = raw_ops.get(name)
        if raw_ms is None:
            print(f"lsp[{server}] warm {name}: not supported by {server}")
            continue
        print(
            f"lsp[{server}] warm {name}: octo {octo_ms:.2f} ms, raw pygls {raw_ms:.2f} ms,"
            f" overhead {octo_ms - raw_ms:+.2f} ms (median of {ROUNDS})"
        )
    print(await structure_versus_cli())


if __name__ == "__main__":
    anyio.run(main)
