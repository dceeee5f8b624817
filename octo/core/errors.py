"""The exception hierarchy of octo, and its one mapping to envelope error codes.

Every failure that reaches a caller is an :class:`OctoError`; each subclass
carries its error code, so the dispatcher turns any raised error into a
per-query error envelope in one place (:func:`error_info`).
"""

from __future__ import annotations

import copy
from enum import StrEnum
from typing import Self


class ErrorCode(StrEnum):
    """Stable error codes of the result envelope."""

    RATE_LIMIT_EXCEEDED = "RATE_LIMIT_EXCEEDED"
    FILE_TOO_LARGE = "FILE_TOO_LARGE"
    NOT_FOUND = "NOT_FOUND"
    AUTHENTICATION_ERROR = "AUTHENTICATION_ERROR"
    INVALID_QUERY = "INVALID_QUERY"
    LSP_NOT_AVAILABLE = "LSP_NOT_AVAILABLE"
    VALIDATION_ERROR = "VALIDATION_ERROR"
    TIMEOUT = "TIMEOUT"
    PATH_NOT_ALLOWED = "PATH_NOT_ALLOWED"
    TOOL_NOT_AVAILABLE = "TOOL_NOT_AVAILABLE"
    INTERNAL_ERROR = "INTERNAL_ERROR"


class OctoError(Exception):
    """Base of every error octo reports.

    ``hints`` are concrete next steps for the caller (a corrected parameter,
    another tool); they travel into the envelope's ``hints``.
    """

    code: ErrorCode = ErrorCode.INTERNAL_ERROR

    def __init__(self, message: str, *, hints: list[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hints: list[str] = list(hints or [])

    def with_hints(self, *hints: str) -> Self:
        """A copy of this error with ``hints`` appended; the original is left as it is.

        An error may be shared (coalesced requests hand one failure to every waiter), so
        nothing adds to an error in place.
        """
        twin = copy.copy(self)
        twin.hints = [*self.hints, *(h for h in hints if h not in self.hints)]
        return twin

    def __copy__(self) -> Self:
        twin = type(self).__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.args = self.args
        twin.hints = list(self.hints)
        return twin


class QueryValidationError(OctoError):
    """A query broke a rule of its tool's query model."""

    code = ErrorCode.VALIDATION_ERROR


class InvalidQueryError(OctoError):
    """A query was well-formed but the backend rejected it (bad regex, bad search syntax)."""

    code = ErrorCode.INVALID_QUERY


class NotFoundError(OctoError):
    """The file, repository, package or symbol does not exist."""

    code = ErrorCode.NOT_FOUND


class FileTooLargeError(OctoError):
    """The content is larger than the tool may return in one answer."""

    code = ErrorCode.FILE_TOO_LARGE


class RateLimitError(OctoError):
    """An upstream rate limit is exhausted; ``reset_at`` is a Unix time when known."""

    code = ErrorCode.RATE_LIMIT_EXCEEDED

    def __init__(
        self, message: str, *, reset_at: float | None = None, hints: list[str] | None = None
    ) -> None:
        super().__init__(message, hints=hints)
        self.reset_at = reset_at


class AuthenticationError(OctoError):
    """A token is missing, invalid or lacks the scope the request needs."""

    code = ErrorCode.AUTHENTICATION_ERROR


class LspNotAvailableError(OctoError):
    """No language server can answer for this file."""

    code = ErrorCode.LSP_NOT_AVAILABLE


class QueryTimeoutError(OctoError):
    """The query did not finish within its time budget."""

    code = ErrorCode.TIMEOUT


class PathNotAllowedError(OctoError):
    """The path lies outside the allowed roots, or is a sensitive file without opt-in."""

    code = ErrorCode.PATH_NOT_ALLOWED


class ToolNotAvailableError(OctoError):
    """The tool, or a component it needs, is not installed or configured."""

    code = ErrorCode.TOOL_NOT_AVAILABLE


class CallError(OctoError):
    """A whole call is malformed (unknown tool, too many queries): no query runs."""

    code = ErrorCode.VALIDATION_ERROR
