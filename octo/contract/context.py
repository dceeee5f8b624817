"""What a tool handler gets besides its query: the runtime and the roots in force for the call."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from octo.contract.runtime import Backend, Runtime
from octo.core.config import Config
from octo.core.paths import PathPolicy

B = TypeVar("B", bound=Backend)


@dataclass(frozen=True)
class QueryContext:
    """The per-query context handed to every handler.

    ``paths`` are the allowed roots of this call: the configured ones, or the narrower
    set an MCP client announced.
    """

    runtime: Runtime
    paths: PathPolicy

    @property
    def config(self) -> Config:
        return self.runtime.config

    def backend(self, cls: type[B]) -> B:
        """The runtime's one instance of backend ``cls`` (built on first use)."""
        return self.runtime.backend(cls)
