"""octo: an async, bulk-query research gateway for code hosts, registries, ripgrep and LSP.

``import octo`` is cheap: the public names load on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING
from typing import Any

from octo.core import VERSION as __version__

if TYPE_CHECKING:
    from octo.contract import ToolSpec
    from octo.core.config import Config
    from octo.core.envelope import BulkResponse
    from octo.core.envelope import ErrorInfo
    from octo.core.envelope import QueryStatus
    from octo.core.envelope import ResultEnvelope
    from octo.core.errors import AuthenticationError
    from octo.core.errors import ErrorCode
    from octo.core.errors import FileTooLargeError
    from octo.core.errors import InvalidQueryError
    from octo.core.errors import LspNotAvailableError
    from octo.core.errors import NotFoundError
    from octo.core.errors import OctoError
    from octo.core.errors import PathNotAllowedError
    from octo.core.errors import QueryTimeoutError
    from octo.core.errors import QueryValidationError
    from octo.core.errors import RateLimitError
    from octo.core.errors import ToolNotAvailableError
    from octo.faces.library import Gateway
    from octo.registry import all_tools

_EXPORTS = {
    "Config": "octo.core.config",
    "Gateway": "octo.faces.library",
    "BulkResponse": "octo.core.envelope",
    "ErrorInfo": "octo.core.envelope",
    "QueryStatus": "octo.core.envelope",
    "ResultEnvelope": "octo.core.envelope",
    "ToolSpec": "octo.contract",
    "all_tools": "octo.registry",
    "ErrorCode": "octo.core.errors",
    "OctoError": "octo.core.errors",
    "AuthenticationError": "octo.core.errors",
    "FileTooLargeError": "octo.core.errors",
    "InvalidQueryError": "octo.core.errors",
    "LspNotAvailableError": "octo.core.errors",
    "NotFoundError": "octo.core.errors",
    "PathNotAllowedError": "octo.core.errors",
    "QueryTimeoutError": "octo.core.errors",
    "QueryValidationError": "octo.core.errors",
    "RateLimitError": "octo.core.errors",
    "ToolNotAvailableError": "octo.core.errors",
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
