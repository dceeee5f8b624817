"""Is a language server still indexing? Its open ``$/progress`` tokens say so, or (for
servers that report no progress while they list the workspace) a log line not seen yet."""

from __future__ import annotations

import re
import time
from collections.abc import Mapping

import anyio
from lsprotocol import types as lsp


class ProgressTracker:
    """Follows one server's ``$/progress`` and log messages.

    ``loaded_log`` matches the log message a server sends once it knows every file of the
    workspace; until it arrives the server counts as busy.
    """

    def __init__(self, loaded_log: str | None = None) -> None:
        self.open_tokens: set[str] = set()
        self.ever_began = False
        self.last_change = time.monotonic()
        self._loaded_log = re.compile(loaded_log) if loaded_log else None
        self.loaded = loaded_log is None

    @property
    def busy(self) -> bool:
        return bool(self.open_tokens) or not self.loaded

    def on_log(self, params: lsp.LogMessageParams) -> None:
        if not self.loaded and self._loaded_log and self._loaded_log.search(params.message):
            self.loaded = True
            self.last_change = time.monotonic()

    def on_progress(self, params: lsp.ProgressParams) -> None:
        value = params.value if isinstance(params.value, Mapping) else {}
        kind = value.get("kind")
        token = str(params.token)
        if kind == "begin":
            self.open_tokens.add(token)
            self.ever_began = True
        elif kind == "end":
            self.open_tokens.discard(token)
        self.last_change = time.monotonic()

    async def settle(self, cap: float, *, first_begin: float = 0.5, quiet: float = 0.2) -> None:
        """Wait until indexing looks done: no begin within ``first_begin`` s, or all tokens
        ended ``quiet`` s ago; never longer than ``cap`` s."""
        start = time.monotonic()
        while (now := time.monotonic()) - start < cap:
            if not self.busy:
                if self.ever_began and now - self.last_change >= quiet:
                    return
                if not self.ever_began and now - start >= first_begin:
                    return
            await anyio.sleep(0.02)
