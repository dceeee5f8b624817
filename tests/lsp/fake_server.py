"""A tiny language server of our own, for the failures real servers rarely show on demand.

Usage: fake_server.py MODE [STATE_DIR]. Every mode answers initialize with a
notebookDocumentSync selector that has ``cells`` (the reply some cattrs releases
cannot parse) and answers definition with line 1 of the queried file, except:

- hang: definition never answers (the client must time out and cancel); with STATE_DIR
  it notes the $/cancelRequest that ends it in STATE_DIR/cancelled.
- chatty: definition first writes 1 MiB to stderr (a pipe nobody reads blocks at 64 KiB).
- crash: definition prints to stderr (quoting the file's first line) and exits 3; with STATE_DIR only the first time.
- malformed: definition answers with something that is not a location.
- error: definition answers with a JSON-RPC error.
- calls: a call hierarchy over CALLS_SOURCE (a and b call target, c calls a and b); with
  STATE "NAME:error" or "NAME:hang" the incoming calls of NAME fail that way, with
  "NAME:many" NAME has 80 callers more.
- progress: a work-done progress begins at initialized and never ends.
- slow-progress: a work-done progress begins at initialized and ends 0.5 s later.
- nocalls: plain, and without callHierarchyProvider.
- huge-message: definition answers with a header announcing 4,000,000,000 bytes, then
  streams them; with STATE_DIR only the first time.
- many-references: references answers with 20,000 locations (about 2 MB).
- million-references: references answers with 1,000,000 locations (about 100 MB).
- grandchild: starts a `sleep` child that outlives the server unless its group is killed.
- slow-start: starts a `sleep` child, then reads nothing for a minute (initialize hangs).
- late-index: the first definition indexes (a work-done progress begins and ends) and
  answers from the index it had before: the use on line 5, not the definition on line 1.
- slow-load: the first definition starts loading the project (a work-done progress that
  ends 1 s later) and never answers, as tsserver's first request waits for its project;
  later ones answer at once.
- busy: definition takes 0.2 s; STATE_DIR/most holds the most definitions it ran at once.
- long-hover: hover answers 30,000 characters of markdown.
- many-types: the type at any place has 150 supertypes and 150 subtypes, each with none.
- alloc-N: holds N MB more from its start (written, so resident).
- grow-N: each definition makes it hold N MB more.
- config: hover answers the initialization options it got and its client's answer to
  workspace/configuration for section "fakelang", as JSON.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from typing import TypeVar

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

MODE = sys.argv[1]
STATE = Path(sys.argv[2]) if len(sys.argv) > 2 and MODE != "calls" else None
FAILING, _, FAILURE = (sys.argv[2] if len(sys.argv) > 2 and MODE == "calls" else "").partition(":")
#: Where each function of CALLS_SOURCE is defined (0-based line), and who calls it, where.
FUNCTIONS = {"target": 0, "a": 4, "b": 8, "c": 12}
CALLERS = {"target": [("a", 5), ("b", 9)], "a": [("c", 13)], "b": [("c", 13)], "c": []}
if FAILURE == "many":  # "NAME:many": NAME has 80 callers more, x0 to x79 (each where a is)
    CALLERS[FAILING] = CALLERS[FAILING] + [(f"x{i}", 5) for i in range(80)]
    FUNCTIONS.update({f"x{i}": 4 for i in range(80)})

server = LanguageServer(
    "fake-lsp",
    "0.1",
    notebook_document_sync=lsp.NotebookDocumentSyncOptions(
        notebook_selector=[
            # Cells without a notebook: the shape cattrs 25+ fails on (pylsp, ty and others send it).
            lsp.NotebookDocumentFilterWithCells(cells=[lsp.NotebookCellLanguage(language="python")])
        ]
    ),
)


def _location(uri: str) -> lsp.Location:
    start = lsp.Position(line=0, character=0)
    return lsp.Location(uri=uri, range=lsp.Range(start=start, end=start))


#: Memory held on purpose (modes alloc-N and grow-N).
_held: list[bytes] = []
_MB = 1 << 20


def _hold(megabytes: int) -> None:
    _held.append(b"x" * (megabytes * _MB))


#: Whether the first definition has indexed (mode late-index).
_indexed: list[bool] = []
#: Definitions running now, and the most at once (mode busy).
_running = [0, 0]


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
async def definition(ls: LanguageServer, params: lsp.DefinitionParams) -> Any:
    if MODE.startswith("grow-"):
        _hold(int(MODE.removeprefix("grow-")))
    if MODE == "busy":
        _running[0] += 1
        _running[1] = max(_running)
        if STATE:
            (STATE / "most").write_text(str(_running[1]))
        await asyncio.sleep(0.2)
        _running[0] -= 1
    if MODE == "hang":
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            if STATE:
                (STATE / "cancelled").touch()
            raise
    if MODE == "chatty":
        for _ in range(1024):
            print("x" * 1023, file=sys.stderr)
    if MODE == "crash" and not (STATE and (STATE / "crashed").exists()):
        if STATE:
            (STATE / "crashed").touch()
        # Like a real server's traceback, the crash quotes the source it choked on.
        quoted = ls.workspace.get_text_document(params.text_document.uri).lines[:1]
        print("fake-lsp: simulated crash in definition", *quoted, file=sys.stderr, flush=True)
        os._exit(3)
    if MODE == "huge-message" and not (STATE and (STATE / "sent").exists()):
        if STATE:
            (STATE / "sent").touch()
        out = sys.stdout.buffer
        out.write(b"Content-Length: 4000000000\r\n\r\n")
        while True:  # until octo kills the server
            out.write(b"x" * 65536)
            out.flush()
    if MODE == "late-index" and not _indexed:
        _indexed.append(True)
        token = "late-indexing"
        await ls.work_done_progress.create_async(token)
        ls.work_done_progress.begin(token, lsp.WorkDoneProgressBegin(title="Indexing"))
        ls.work_done_progress.end(token, lsp.WorkDoneProgressEnd())
        stale = lsp.Position(line=4, character=8)
        return [lsp.Location(uri=params.text_document.uri, range=lsp.Range(start=stale, end=stale))]
    if MODE == "slow-load" and not _indexed:
        _indexed.append(True)
        token = "loading"
        await ls.work_done_progress.create_async(token)
        ls.work_done_progress.begin(token, lsp.WorkDoneProgressBegin(title="Loading"))
        asyncio.get_running_loop().call_later(
            1.0, ls.work_done_progress.end, token, lsp.WorkDoneProgressEnd()
        )
        await asyncio.sleep(60)
    if MODE == "malformed":
        return {"this is": "not a location"}
    if MODE == "error":
        raise RuntimeError("simulated failure in definition")
    return [_location(params.text_document.uri)]


def _raw_locations(msg_id: object, uri: str, count: int) -> bytes:
    """A reply of ``count`` locations written as JSON text at once: pygls would take minutes
    to serialise a million."""
    location = json.dumps(
        {
            "uri": uri,
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
        }
    )
    locations = ",".join([location] * count)
    body = f'{{"jsonrpc":"2.0","id":{json.dumps(msg_id)},"result":[{locations}]}}'
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body.encode())


@server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
async def references(ls: LanguageServer, params: lsp.ReferenceParams) -> Any:
    uri = params.text_document.uri
    if MODE == "million-references":
        sys.stdout.buffer.write(_raw_locations(ls.protocol._ctx_msg_id.get(), uri, 1_000_000))
        sys.stdout.buffer.flush()
        await asyncio.sleep(3600)  # octo stops the server
    if MODE == "many-references":
        return [
            {
                "uri": uri,
                "range": {
                    "start": {"line": n % 5, "character": n},
                    "end": {"line": n % 5, "character": n + 1},
                },
            }
            for n in range(20_000)
        ]
    return [_location(uri)]


Item = TypeVar("Item", lsp.CallHierarchyItem, lsp.TypeHierarchyItem)


def _hierarchy_item(item: type[Item], name: str, uri: str, line: int, kind: lsp.SymbolKind) -> Item:
    where = lsp.Range(start=lsp.Position(line, 4), end=lsp.Position(line, 4 + len(name)))
    return item(name=name, kind=kind, uri=uri, range=where, selection_range=where)


def _item(name: str, uri: str) -> lsp.CallHierarchyItem:
    return _hierarchy_item(
        lsp.CallHierarchyItem, name, uri, FUNCTIONS[name], lsp.SymbolKind.Function
    )


if MODE == "calls":

    @server.feature(lsp.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY)
    def prepare_calls(
        ls: LanguageServer, params: lsp.CallHierarchyPrepareParams
    ) -> list[lsp.CallHierarchyItem]:
        return [_item("target", params.text_document.uri)]

    @server.feature(lsp.CALL_HIERARCHY_INCOMING_CALLS)
    async def incoming(
        ls: LanguageServer, params: lsp.CallHierarchyIncomingCallsParams
    ) -> list[lsp.CallHierarchyIncomingCall]:
        name, uri = params.item.name, params.item.uri
        if name == FAILING and FAILURE == "hang":
            await asyncio.sleep(3600)
        if name == FAILING and FAILURE == "error":
            raise RuntimeError(f"simulated failure in the incoming calls of {name}")
        return [
            lsp.CallHierarchyIncomingCall(
                from_=_item(caller, uri),
                from_ranges=[lsp.Range(start=lsp.Position(line, 11), end=lsp.Position(line, 12))],
            )
            for caller, line in CALLERS.get(name, [])
        ]

elif MODE != "nocalls":

    @server.feature(lsp.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY)
    def prepare(ls: LanguageServer, params: lsp.CallHierarchyPrepareParams) -> None:
        return None


if MODE == "long-hover":

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def long_hover(ls: LanguageServer, params: lsp.HoverParams) -> lsp.Hover:
        text = "\n".join(f"Line {n} of a long docstring, with some words." for n in range(700))
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text))


#: The initialization options of the initialize request (mode config).
_options: list[Any] = []

if MODE == "config":

    @server.feature(lsp.INITIALIZE)
    def remember_options(ls: LanguageServer, params: lsp.InitializeParams) -> None:
        _options.append(params.initialization_options)

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    async def configuration(ls: LanguageServer, params: lsp.HoverParams) -> lsp.Hover:
        asked = lsp.ConfigurationParams(items=[lsp.ConfigurationItem(section="fakelang")])
        settings = await ls.workspace_configuration_async(asked)
        text = json.dumps({"options": _options[0] if _options else None, "settings": settings})
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.PlainText, value=text))


def _type(name: str, uri: str, line: int) -> lsp.TypeHierarchyItem:
    return _hierarchy_item(lsp.TypeHierarchyItem, name, uri, line, lsp.SymbolKind.Class)


def _related(item: lsp.TypeHierarchyItem, prefix: str) -> list[lsp.TypeHierarchyItem]:
    """The root's 150 related types named ``prefix``NNN; none for any other type."""
    if item.name != "Root":
        return []
    return [_type(f"{prefix}{n:03d}", item.uri, n % 5) for n in range(150)]


if MODE == "many-types":

    @server.feature(lsp.TEXT_DOCUMENT_PREPARE_TYPE_HIERARCHY)
    def prepare_types(
        ls: LanguageServer, params: lsp.TypeHierarchyPrepareParams
    ) -> list[lsp.TypeHierarchyItem]:
        return [_type("Root", params.text_document.uri, 0)]

    @server.feature(lsp.TYPE_HIERARCHY_SUPERTYPES)
    def supertypes(
        ls: LanguageServer, params: lsp.TypeHierarchySupertypesParams
    ) -> list[lsp.TypeHierarchyItem]:
        return _related(params.item, "Base")

    @server.feature(lsp.TYPE_HIERARCHY_SUBTYPES)
    def subtypes(
        ls: LanguageServer, params: lsp.TypeHierarchySubtypesParams
    ) -> list[lsp.TypeHierarchyItem]:
        return _related(params.item, "Derived")


@server.feature(lsp.INITIALIZED)
async def initialized(ls: LanguageServer, params: lsp.InitializedParams) -> None:
    if MODE in ("progress", "slow-progress"):
        token = "indexing"
        await ls.work_done_progress.create_async(token)
        ls.work_done_progress.begin(token, lsp.WorkDoneProgressBegin(title="Indexing"))
        if MODE == "slow-progress":
            await asyncio.sleep(0.5)
            ls.work_done_progress.end(token, lsp.WorkDoneProgressEnd())


if __name__ == "__main__":
    if MODE.startswith("alloc-"):
        _hold(int(MODE.removeprefix("alloc-")))
    if MODE in ("grandchild", "slow-start"):
        subprocess.Popen(["sleep", "60"])
    if MODE == "slow-start":
        time.sleep(60)
    server.start_io()
