"""Reading a response's body within a byte limit: octo never holds more of an answer than
the caller said its kind may need (a file's content, a JSON page, a package's metadata).

The body is streamed; past the limit (or when Content-Length already says so) reading
stops and the connection is closed. A body that breaks off, or cannot be decoded, is an
INVALID_RESPONSE, never a success with part of the content.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol
from typing import TypeVar

import httpx

from octo.core.errors import InvalidResponseError

T = TypeVar("T")

#: The most a JSON answer of an API may hold.
MAX_JSON_BYTES = 10 * 1024 * 1024

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
    """Where a large body goes as it arrives (an archive to a file), instead of memory."""

    async def restart(self) -> None:
        """Drop what was written: a new body begins (a retried request)."""

    async def write(self, chunk: bytes) -> None:
        """Keep the next ``chunk`` of the body."""


async def read_capped(
    response: httpx.Response, *, limit: int, name: str, sink: BodySink | None = None
) -> httpx.Response:
    """``response`` (opened with ``stream=True``) with its body read, at most ``limit``
    bytes (decoded), into ``sink`` when given and the status is a success (the response then
    holds no body; an error's body is held, within :data:`MAX_JSON_BYTES`, for its message).
    The stream is closed in every case; a timeout is raised as is."""
    if sink is not None and not response.is_success:
        sink, limit = None, min(limit, MAX_JSON_BYTES)
    try:
        if sink is not None:
            await sink.restart()
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise _too_large(name, int(declared), limit)
        chunks: list[bytes] = []
        total = 0
        try:
            async for chunk in response.aiter_bytes():
                total += len(chunk)
                if total > limit:
                    raise _too_large(name, None, limit)
                if sink is None:
                    chunks.append(chunk)
                else:
                    await sink.write(chunk)
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
    return httpx.Response(
        response.status_code,
        headers=[(k, v) for k, v in response.headers.multi_items() if k not in _BODY_HEADERS],
        content=b"".join(chunks),
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


def parsed(response: httpx.Response, parse: Callable[[httpx.Response], T], *, name: str) -> T:
    """``parse(response)``; a body it cannot read (truncated or malformed JSON, an
    unexpected shape) is an InvalidResponseError naming the URL, not a crash."""
    try:
        return parse(response)
    except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
        where = response.request.url.copy_with(query=None)
        raise InvalidResponseError(
            f"{name} answered {where} with a body octo cannot read (cut off or of an "
            f"unexpected shape: {type(exc).__name__}: {str(exc)[:200]})",
            hints=["Retry; if it persists, the host or a proxy in between is at fault."],
        ) from None
