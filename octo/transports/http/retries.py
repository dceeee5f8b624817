"""When a request to a remote host is tried again: what a retryable answer says
(:class:`Retry`), and one request's tries under a time budget (:class:`Attempts`, driving
tenacity).
"""

from __future__ import annotations

from collections.abc import Awaitable
from collections.abc import Callable
from dataclasses import dataclass

from tenacity import AsyncRetrying
from tenacity import RetryCallState
from tenacity import retry_if_exception_type

from octo.transports.http.policy import Backoff


class Retry(Exception):
    """A response worth retrying; ``delay`` is a wait the host asked for, else ``backoff``."""

    def __init__(
        self,
        reason: str,
        *,
        rate_limited: bool,
        delay: float | None = None,
        backoff: Backoff | None = None,
        attempts: int = 3,
        resets: str | None = None,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        #: The exhausted resource this wait outlasts: its state is dropped before retrying.
        self.resets = resets
        self.rate_limited = rate_limited
        self.delay = delay
        self.backoff = backoff
        self.attempts = backoff.attempts if backoff else attempts

    def wait(self, retry_number: int) -> float:
        if self.delay is not None:
            return self.delay
        assert self.backoff is not None
        return self.backoff.delay(retry_number)


@dataclass
class Attempts:
    """The tries of one request: each :class:`Retry` waits as it says while the tries it
    allows last and the waits fit in ``budget()`` seconds; ``retrying`` hears of each retry
    before its wait. Keeps the time waited and the wait that was refused."""

    budget: Callable[[], float]
    sleep: Callable[[float], Awaitable[None]]
    retrying: Callable[[Retry], None]
    waited: float = 0.0
    last: Retry | None = None
    refused_wait: float = 0.0

    def __aiter__(self) -> AsyncRetrying:
        return AsyncRetrying(
            retry=retry_if_exception_type(Retry),
            wait=self._wait,
            stop=self._stop,
            sleep=self.sleep,
            reraise=True,
        ).__aiter__()

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        assert isinstance(exc, Retry)
        self.last = exc
        return exc.wait(state.attempt_number)

    def _stop(self, state: RetryCallState) -> bool:
        exc, upcoming = self.last, state.upcoming_sleep
        if exc is None or state.attempt_number >= exc.attempts:
            self.refused_wait = upcoming
            return True
        if self.waited + upcoming > self.budget():
            self.refused_wait = upcoming
            return True
        self.waited += upcoming
        self.retrying(exc)
        return False
