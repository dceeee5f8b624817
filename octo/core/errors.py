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
    INVALID_RESPONSE = "INVALID_RESPONSE"
    BUSY = "BUSY"
    INTERNAL_ERROR = "INTERNAL_ERROR"


class OctoError(Exception):
    """Base of every error octo reports.

    ``hints`` are concrete next steps for the caller (a corrected parameter,
    another tool); they travel into the envelope's ``hints``.
    """

    code: ErrorCode = ErrorCode.INTERNAL_ERROR

    def __init_subclass__(cls, *, code: ErrorCode | None = None, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if code is not None:
            cls.code = code

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


class QueryValidationError(OctoError, code=ErrorCode.VALIDATION_ERROR):
    """A query broke a rule of its tool's query model."""


class InvalidQueryError(OctoError, code=ErrorCode.INVALID_QUERY):
    """A query was well-formed but the backend rejected it (bad regex, bad search syntax)."""


class NotFoundError(OctoError, code=ErrorCode.NOT_FOUND):
    """The file, repository, package or symbol does not exist."""


class FileTooLargeError(OctoError, code=ErrorCode.FILE_TOO_LARGE):
    """The content is larger than the tool may return in one answer."""


class RateLimitError(OctoError, code=ErrorCode.RATE_LIMIT_EXCEEDED):
    """An upstream rate limit is exhausted; ``reset_at`` is a Unix time when known."""

    def __init__(
        self, message: str, *, reset_at: float | None = None, hints: list[str] | None = None
    ) -> None:
        super().__init__(message, hints=hints)
        self.reset_at = reset_at


class BusyError(RateLimitError, code=ErrorCode.BUSY):
    """octo itself is at its bound of work: the call could not start within a few seconds.
    ``reset_at`` (a Unix time) says when to retry; nothing of the call ran."""


class AuthenticationError(OctoError, code=ErrorCode.AUTHENTICATION_ERROR):
    """A token is missing, invalid or lacks the scope the request needs."""


class LspNotAvailableError(OctoError, code=ErrorCode.LSP_NOT_AVAILABLE):
    """No language server can answer for this file."""


class QueryTimeoutError(OctoError, code=ErrorCode.TIMEOUT):
    """The query did not finish within its time budget."""


class PathNotAllowedError(OctoError, code=ErrorCode.PATH_NOT_ALLOWED):
    """The path lies outside the allowed roots, or is a sensitive file without opt-in."""


class ToolNotAvailableError(OctoError, code=ErrorCode.TOOL_NOT_AVAILABLE):
    """The tool, or a component it needs, is not installed or configured."""


class InvalidResponseError(OctoError, code=ErrorCode.INVALID_RESPONSE):
    """A host answered with something octo cannot use: a body cut off, malformed, larger
    than octo reads of it, or endless redirects."""


class CallError(OctoError, code=ErrorCode.VALIDATION_ERROR):
    """A whole call is malformed (unknown tool, too many queries): no query runs."""
