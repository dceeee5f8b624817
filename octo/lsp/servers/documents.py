"""The files a server has open: opened on first query, sent again when they change on
disk, closed when too many are open."""

from __future__ import annotations

import collections
from collections.abc import Awaitable
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

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
