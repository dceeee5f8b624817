"""How much of a remote file a query may download: the whole file up to what one answer
holds, a file read in part (a line range, matches, a character page) up to a larger cap.
The hosts ask for no more (a longer body is refused before it is downloaded whole)."""

from __future__ import annotations

from octo.codehosts.models.code import FileContentQuery
from octo.core.errors import FileTooLargeError

#: The largest file one answer holds whole.
MAX_FILE_BYTES = 300 * 1024
#: The largest file read in part.
MAX_PART_FILE_BYTES = 10 * 1024 * 1024


def reads_whole(query: FileContentQuery) -> bool:
    """True when the query asks for the whole file (no range, match or character page)."""
    return query.startLine is None and query.matchString is None and query.charLength is None


def download_limit(query: FileContentQuery) -> int:
    """The most bytes of the file ``query`` may download."""
    return MAX_FILE_BYTES if reads_whole(query) else MAX_PART_FILE_BYTES


def file_too_large(
    query: FileContentQuery, size: int | None, chars: int | None = None
) -> FileTooLargeError:
    """FILE_TOO_LARGE for ``query``'s file of ``size`` bytes (None: unknown, over the limit)
    and ``chars`` characters (when known)."""
    told = f"is {size} bytes" if size is not None else "is larger than octo downloads"
    if reads_whole(query):
        has = f" (the file has {chars} characters)" if chars is not None else ""
        return FileTooLargeError(
            f"{query.path} {told}; one answer holds at most {MAX_FILE_BYTES} bytes",
            hints=[
                f"Read it in pages: charOffset={query.charOffset}, charLength=50000{has}.",
                "Or read part of it: matchString, or startLine/endLine.",
            ],
        )
    return FileTooLargeError(
        f"{query.path} {told}; octo reads parts of files up to {MAX_PART_FILE_BYTES} bytes",
        hints=["Find what you need in it with githubSearchCode, or read a smaller file."],
    )
