"""A body streamed to a sink: the sink has it chunk by chunk and its end once, may stop the
reading early (the rest left unread, the connection closed), and an error's body is held
for its message instead (the sink never sees it)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx

from octo.transports.http.body import read_capped

CHUNK = b"x" * 65536


class Collected:
    """A sink that keeps what it is given, and stops after ``wanted`` bytes when set."""

    def __init__(self, wanted: int | None = None) -> None:
        self.wanted = wanted
        self.chunks: list[bytes] = []
        self.restarts = 0
        self.ends = 0

    async def restart(self) -> None:
        self.restarts += 1
        self.chunks.clear()

    async def write(self, chunk: bytes) -> bool:
        self.chunks.append(chunk)
        return self.wanted is None or sum(map(len, self.chunks)) < self.wanted

    async def end(self) -> None:
        self.ends += 1


class Body(httpx.AsyncByteStream):
    """``count`` chunks, noting how many were sent and whether the stream was closed."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.sent = 0
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for _ in range(self.count):
            self.sent += 1
            yield CHUNK

    async def aclose(self) -> None:
        self.closed = True


async def _streamed(status: int, body: Body) -> httpx.Response:
    transport = httpx.MockTransport(lambda request: httpx.Response(status, stream=body))
    async with httpx.AsyncClient(transport=transport) as http:
        request = http.build_request("GET", "https://host.test/log")
        return await http.send(request, stream=True)


async def test_a_sink_has_the_whole_body_and_its_end_once() -> None:
    body, sink = Body(4), Collected()
    response = await read_capped(await _streamed(200, body), limit=None, name="Host", sink=sink)
    assert b"".join(sink.chunks) == CHUNK * 4 and sink.restarts == 1 and sink.ends == 1
    assert response.content == b"" and body.closed


async def test_a_sink_that_has_enough_stops_the_reading() -> None:
    body, sink = Body(1000), Collected(wanted=2 * len(CHUNK))
    await read_capped(await _streamed(200, body), limit=None, name="Host", sink=sink)
    assert len(sink.chunks) == 2 and sink.ends == 0
    assert body.closed and body.sent < 1000


async def test_an_error_body_is_held_not_sunk() -> None:
    sink = Collected()
    response = await read_capped(await _streamed(500, Body(1)), limit=None, name="Host", sink=sink)
    assert response.content == CHUNK and sink.chunks == [] and sink.restarts == 0
