"""Fixtures of the security suite: real local HTTP servers that record what reaches them."""

from __future__ import annotations

import json
from collections.abc import Callable
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from typing import Any

from tests.recording_server import Answer
from tests.recording_server import RecordingServer
from tests.recording_server import recording


@dataclass(frozen=True)
class Reply:
    """What a recording server answers: a status, headers and a JSON body."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None


def _encoded(reply: Reply) -> Answer:
    body = b"" if reply.body is None else json.dumps(reply.body).encode()
    return reply.status, {"content-type": "application/json", **reply.headers}, body


def serve_recording(answer: Callable[[str], Reply]) -> Iterator[RecordingServer]:
    """Run a :class:`RecordingServer` answering JSON ``answer(path)`` until the generator is
    closed."""
    with recording(RecordingServer(lambda path: _encoded(answer(path)))) as server:
        yield server


# The shared-state cases run on the real Redis of the team suite's fixtures.
from tests.core.shared.conftest import prefix  # noqa: E402, F401
from tests.core.shared.conftest import redis_url  # noqa: E402, F401
