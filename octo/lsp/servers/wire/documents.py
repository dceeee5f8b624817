"""The files a server has open: opened on first query, sent again when they change on
disk, closed when too many are open."""

from __future__ import annotations

import collections
from collections.abc import Awaitable
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from lsprotocol import types as lsp
from lsprotocol.converters import get_converter

#: Open documents per server; the least recently queried is closed first.
_OPEN_DOCUMENTS = 64

Notify = Callable[[str, Any], Awaitable[None]]


@dataclass(frozen=True)
class Source:
    """A file as read from disk: its text and its (mtime_ns, size) stamp."""

    path: Path
    text: str
    stamp: tuple[int, int]

    @classmethod
    def read(cls, path: Path) -> Source:
        """``path`` read now (blocking: call it in a worker thread)."""
        stat = path.stat()
        text = path.read_text(encoding="utf-8", errors="replace")
        return cls(path, text, (stat.st_mtime_ns, stat.st_size))


class OpenDocuments:
    """What one server has open, and at which version (an LRU of 64)."""

    def __init__(self, notify: Notify) -> None:
        self._notify = notify
        self._open: collections.OrderedDict[Path, tuple[tuple[int, int], int]] = (
            collections.OrderedDict()
        )

    async def sync(self, source: Source, language_id: str) -> None:
        """Open ``source`` on the server, or send its new text if it changed on disk."""
        path, uri = source.path, source.path.as_uri()
        known = self._open.get(path)
        if known is not None:
            self._open.move_to_end(path)
            stamp, version = known
            if stamp == source.stamp:
                return
            await self._notify(
                lsp.TEXT_DOCUMENT_DID_CHANGE,
                lsp.DidChangeTextDocumentParams(
                    text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version + 1),
                    content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=source.text)],
                ),
            )
            self._open[path] = (source.stamp, version + 1)
            return
        await self._notify(
            lsp.TEXT_DOCUMENT_DID_OPEN,
            lsp.DidOpenTextDocumentParams(
                text_document=lsp.TextDocumentItem(
                    uri=uri, language_id=language_id, version=1, text=source.text
                )
            ),
        )
        self._open[path] = (source.stamp, 1)
        while len(self._open) > _OPEN_DOCUMENTS:
            oldest, _ = self._open.popitem(last=False)
            await self._notify(
                lsp.TEXT_DOCUMENT_DID_CLOSE,
                lsp.DidCloseTextDocumentParams(
                    text_document=lsp.TextDocumentIdentifier(uri=oldest.as_uri())
                ),
            )


#: Files whose published diagnostics a server's client keeps (the most recent ones).
_KEPT_DIAGNOSTICS = 256


class PublishedDiagnostics:
    """The diagnostics a server last published per file (servers without pull diagnostics
    push them after a file opens or changes), kept for the most recent files."""

    def __init__(self) -> None:
        self._by_uri: collections.OrderedDict[str, list[dict[str, Any]]] = collections.OrderedDict()
        # Events of the waiting queries (made in their task: the client may be made off-loop).
        self._waiting: list[anyio.Event] = []

    def on_publish(self, params: Any) -> None:
        """The ``textDocument/publishDiagnostics`` handler (params come structured)."""
        raw = params if isinstance(params, dict) else get_converter().unstructure(params)
        uri, items = raw.get("uri"), raw.get("diagnostics")
        if not isinstance(uri, str) or not isinstance(items, list):
            return
        self._by_uri[uri] = [item for item in items if isinstance(item, dict)]
        self._by_uri.move_to_end(uri)
        while len(self._by_uri) > _KEPT_DIAGNOSTICS:
            self._by_uri.popitem(last=False)
        waiting, self._waiting = self._waiting, []
        for event in waiting:
            event.set()

    def get(self, uri: str) -> list[dict[str, Any]] | None:
        """What was last published for ``uri``; None when nothing was."""
        return self._by_uri.get(uri)

    async def wait_for(self, uri: str, seconds: float) -> list[dict[str, Any]] | None:
        """What is published for ``uri``, waiting up to ``seconds`` for a first publication."""
        with anyio.move_on_after(seconds):
            while uri not in self._by_uri:
                event = anyio.Event()
                self._waiting.append(event)
                await event.wait()
        return self._by_uri.get(uri)
