"""Reading a response's body within a byte limit: octo never holds more of an answer than
the caller said its kind may need (a file's content, a JSON page, a package's metadata).

The body is streamed; past the limit (or when Content-Length already says so) reading
stops and the connection is closed. A body that breaks off, or cannot be decoded, is an
INVALID_RESPONSE, never a success with part of the content. So is a JSON answer nested
deeper than any API's (:data:`MAX_JSON_DEPTH`), refused before a parser recurses into it.
A body too large to hold (an archive, a CI log) goes to a :class:`BodySink` as it streams,
through the same checks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import accumulate
from typing import Protocol
from typing import TypeVar

import httpx

from octo.core.errors import InvalidResponseError

T = TypeVar("T")

#: The most a JSON answer of an API may hold.
MAX_JSON_BYTES = 10 * 1024 * 1024

#: The deepest nesting of arrays and objects a JSON answer may have (the APIs octo reads
#: nest a dozen levels; Python's parsers recurse once per level).
MAX_JSON_DEPTH = 128

_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
#: +1 for an opening bracket, -1 for a closing one, by byte.
_STEP = [1 if b in b"[{" else -1 if b in b"]}" else 0 for b in range(256)]

#: The most of a body read at once (a sink takes it a chunk at a time).
_CHUNK = 64 * 1024

# Dropped from the read response: its body is held decoded, with its own length.
_BODY_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})


class BodyTooLargeError(InvalidResponseError):
    """An answer's body is over the limit its caller set: ``size`` is its length when the
    host said it (Content-Length), else None."""

    def __init__(self, message: str, *, size: int | None, limit: int) -> None:
        super().__init__(message, hints=["Ask for less at once (a narrower path, a page)."])
        self.size = size
        self.limit = limit


class BodySink(Protocol):
    """Where a successful answer's body goes as it arrives, instead of memory: an archive to
    a file, a log's lines to what reduces them. A retried request starts it over."""

    async def restart(self) -> None:
        """Drop what was taken: a new body begins."""

    async def write(self, chunk: bytes) -> bool:
        """Take the next ``chunk`` of the body; False when the sink wants no more (the rest
        is left unread and the connection closed)."""

    async def end(self) -> None:
        """The body was read to its end."""


async def read_capped(
    response: httpx.Response, *, limit: int | None, name: str, sink: BodySink | None = None
) -> httpx.Response:
    """``response`` (opened with ``stream=True``) with its body read, at most ``limit``
    bytes (decoded; None: as much as the sink takes, for a sink that bounds itself), into
    ``sink`` when given and the status is a success (the response then holds no body; an
    error's body is held, within :data:`MAX_JSON_BYTES`, for its message). The stream is
    closed in every case; a timeout is raised as is."""
    if sink is not None and not response.is_success:
        sink, limit = None, min(limit or MAX_JSON_BYTES, MAX_JSON_BYTES)
    if sink is None and limit is None:
        raise ValueError("a body held in memory needs a limit")
    try:
        if sink is not None:
            await sink.restart()
        declared = response.headers.get("content-length", "")
        if limit is not None and declared.isdigit() and int(declared) > limit:
            raise _too_large(name, int(declared), limit)
        chunks: list[bytes] = []
        total = 0
        try:
            async for chunk in response.aiter_bytes(_CHUNK):
                total += len(chunk)
                if limit is not None and total > limit:
                    raise _too_large(name, None, limit)
                if sink is None:
                    chunks.append(chunk)
                elif not await sink.write(chunk):
                    break
            else:
                if sink is not None:
                    await sink.end()
        except httpx.TimeoutException:
            raise
        except httpx.DecodingError as exc:
            raise InvalidResponseError(f"{name} sent a body octo cannot decode: {exc}") from None
        except httpx.TransportError as exc:
            raise InvalidResponseError(
                f"{name}'s answer broke off after {total} bytes: {exc or type(exc).__name__}",
                hints=["Retry: the connection was cut while the answer was on its way."],
            ) from None
    finally:
        await response.aclose()
    content = b"".join(chunks)
    if "json" in response.headers.get("content-type", "") and json_depth(content) > MAX_JSON_DEPTH:
        raise InvalidResponseError(
            f"{name} answered {response.request.url.copy_with(query=None)} with JSON nested "
            f"deeper than the {MAX_JSON_DEPTH} levels octo reads",
            hints=["Retry; if it persists, the host or a proxy in between is at fault."],
        )
    return httpx.Response(
        response.status_code,
        headers=[(k, v) for k, v in response.headers.multi_items() if k not in _BODY_HEADERS],
        content=content,
        request=response.request,
        extensions=response.extensions,
    )


def _too_large(name: str, size: int | None, limit: int) -> BodyTooLargeError:
    told = f" of {size} bytes" if size is not None else ""
    return BodyTooLargeError(
        f"{name} answered with a body{told} over the {limit} bytes octo reads of this kind of "
        "answer; the connection was closed",
        size=size,
        limit=limit,
    )


def json_depth(body: bytes) -> int:
    """How deep ``body``'s arrays and objects nest, brackets inside strings not counted: in
    linear time and constant stack, whatever the body."""
    brackets = _JSON_STRING.sub(b"", body).translate(None, _NOT_BRACKET)
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def parsed(response: httpx.Response, parse: Callable[[httpx.Response], T], *, name: str) -> T:
    """``parse(response)``; a body it cannot read (truncated or malformed JSON, an
    unexpected shape) is an InvalidResponseError naming the URL, not a crash."""
    try:
        return parse(response)
    except (ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError) as exc:
        where = response.request.url.copy_with(query=None)
        raise InvalidResponseError(
            f"{name} answered {where} with a body octo cannot read (cut off or of an "
            f"unexpected shape: {type(exc).__name__}: {str(exc)[:200]})",
            hints=["Retry; if it persists, the host or a proxy in between is at fault."],
        ) from None
