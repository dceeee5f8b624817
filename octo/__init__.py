"""octo: an async, bulk-query research gateway for code hosts, registries, ripgrep and LSP.

``import octo`` is cheap: the public names load on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from octo.config import Config
    from octo.envelope import BulkResponse, ErrorInfo, QueryStatus, ResultEnvelope
    from octo.errors import (
        AuthenticationError,
        ErrorCode,
        FileTooLargeError,
        InvalidQueryError,
        LspNotAvailableError,
        NotFoundError,
        OctoError,
        PathNotAllowedError,
        QueryTimeoutError,
        QueryValidationError,
        RateLimitError,
        ToolNotAvailableError,
    )
    from octo.gateway import Gateway
    from octo.registry import ToolSpec, all_tools

_EXPORTS = {
    "Config": "octo.config",
    "Gateway": "octo.gateway",
    "BulkResponse": "octo.envelope",
    "ErrorInfo": "octo.envelope",
    "QueryStatus": "octo.envelope",
    "ResultEnvelope": "octo.envelope",
    "ToolSpec": "octo.registry",
    "all_tools": "octo.registry",
    "ErrorCode": "octo.errors",
    "OctoError": "octo.errors",
    "AuthenticationError": "octo.errors",
    "FileTooLargeError": "octo.errors",
    "InvalidQueryError": "octo.errors",
    "LspNotAvailableError": "octo.errors",
    "NotFoundError": "octo.errors",
    "PathNotAllowedError": "octo.errors",
    "QueryTimeoutError": "octo.errors",
    "QueryValidationError": "octo.errors",
    "RateLimitError": "octo.errors",
    "ToolNotAvailableError": "octo.errors",
}

__all__ = [
    "AuthenticationError",
    "BulkResponse",
    "Config",
    "ErrorCode",
    "ErrorInfo",
    "FileTooLargeError",
    "Gateway",
    "InvalidQueryError",
    "LspNotAvailableError",
    "NotFoundError",
    "OctoError",
    "PathNotAllowedError",
    "QueryStatus",
    "QueryTimeoutError",
    "QueryValidationError",
    "RateLimitError",
    "ResultEnvelope",
    "ToolNotAvailableError",
    "ToolSpec",
    "__version__",
    "all_tools",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'octo' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
