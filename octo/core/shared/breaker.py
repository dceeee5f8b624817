"""A circuit breaker: after a failure, leave a service alone for a while, then try again.

Used for the shared store: while it is down, queries do not each wait for it to time out;
one call after each cool-down tries it again, and the first success closes the breaker.
An outage is logged once when it starts and once when it ends.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

logger = logging.getLogger("octo.shared")


class CircuitBreaker:
    """Closed (calls go through) until a failure opens it for ``cooldown`` seconds; then
    one call at a time may probe until one succeeds. ``clock`` is injectable."""

    def __init__(
        self, name: str, cooldown: float, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.name = name
        self.cooldown = cooldown
        self.clock = clock
        self._open_until: float | None = None

    @property
    def closed(self) -> bool:
        """True while calls go through as usual."""
        return self._open_until is None

    def allows(self) -> bool:
        """Whether a call may be tried now; a probe after the cool-down pushes the next one
        a cool-down further, so a dead service costs one wait per cool-down."""
        if self._open_until is None:
            return True
        now = self.clock()
        if now < self._open_until:
            return False
        self._open_until = now + self.cooldown
        return True

    def failed(self, reason: str) -> None:
        """A call failed: open (log when the outage starts)."""
        if self._open_until is None:
            logger.warning(
                "%s unavailable (%s): answering from the local cache and upstream; "
                "trying again every %g s",
                self.name,
                reason,
                self.cooldown,
            )
        self._open_until = self.clock() + self.cooldown

    def succeeded(self) -> None:
        """A call succeeded: close (log when an outage ends)."""
        if self._open_until is not None:
            logger.warning("%s is back: sharing again", self.name)
        self._open_until = None
