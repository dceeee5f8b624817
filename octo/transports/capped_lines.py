"""A child's output read one line at a time in bounded memory: a line too long to keep whole
(a minified bundle, a data file of one 200 MB line) comes as its head and tail, so it costs
no more memory than a short one."""

from __future__ import annotations

from collections.abc import AsyncIterable
from collections.abc import AsyncIterator
from dataclasses import dataclass


@dataclass(frozen=True)
class LongLine:
    """A line of output too long to keep whole: its first bytes (``head``), its last bytes
    (``tail``) and its length in bytes."""

    head: bytes
    tail: bytes
    length: int


class _LongLineReader:
    """Follows a long line chunk by chunk, keeping its head and a tail of ``keep`` bytes."""

    def __init__(self, head: bytes, keep: int) -> None:
        self.head = head
        self.keep = keep
        self.tail = bytearray()
        self.length = len(head)

    def feed(self, piece: bytes) -> None:
        self.length += len(piece)
        self.tail += piece
        if len(self.tail) > 2 * self.keep:
            del self.tail[: len(self.tail) - self.keep]

    def end(self, piece: bytes) -> LongLine:
        self.feed(piece)
        return LongLine(self.head, bytes(self.tail[-self.keep :]), self.length)


async def capped_lines(
    chunks: AsyncIterable[bytes], longest: int, keep: int = 64 * 1024
) -> AsyncIterator[bytes | LongLine]:
    """``chunks`` one newline-ended line at a time, without its ending; a line over
    ``longest`` bytes comes as a :class:`LongLine` (its first and last ``keep`` bytes)."""
    partial = bytearray()
    long: _LongLineReader | None = None
    async for chunk in chunks:
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            if long is None:
                partial += chunk[start:end]
                if len(partial) > longest:
                    yield LongLine(bytes(partial[:keep]), bytes(partial[-keep:]), len(partial))
                else:
                    yield bytes(partial)
            else:
                yield long.end(chunk[start:end])
                long = None
            partial.clear()
            start = end + 1
        rest = chunk[start:]
        if long is not None:
            long.feed(rest)
        else:
            partial += rest
            if len(partial) > longest:
                long = _LongLineReader(bytes(partial[:keep]), keep)
                long.feed(bytes(partial[keep:]))
                partial.clear()
    if long is not None:
        yield long.end(b"")
    elif partial:
        yield bytes(partial)
