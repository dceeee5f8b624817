"""The files of one search page as rg's second pass reads them: each opened by octo (no
symbolic link followed, so a file swapped for a link after the first pass is not read) and
handed to rg as the opened file itself; and the check that makes the private-key body lines a
page shows without their BEGIN line known to the call, so the dispatcher hides them."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field

import anyio

from octo.core.errors import OctoError
from octo.core.files.confined import Opened
from octo.core.files.confined import open_below
from octo.core.secrets.redaction import key_body_lines
from octo.local.redacted_search import RedactedCopies
from octo.local.redacted_search import redacted_copies
from octo.local.search.rg_output import MatchingFile
from octo.local.search.rg_output import PageScan

#: A line that may be part of a key body: base64 only, long or padded.
_KEY_BODY_LIKE = re.compile(r"[ \t+]*(?:[A-Za-z0-9+/]{16,}={0,2}|[A-Za-z0-9+/]*=+)[ \t]*\r?")


@dataclass
class PageSources:
    """The page's files that could be opened, by the path rg printed in the first pass."""

    opened: dict[bytes, Opened] = field(default_factory=dict)
    #: Redacted copies searched instead of the files that hold a secret.
    copies: RedactedCopies = field(default_factory=RedactedCopies)

    def _name(self, arg: bytes, source: Opened) -> str:
        return self.copies.path(arg) if arg in self.copies.fds else source.child_path()

    @property
    def args(self) -> list[str]:
        """rg's file arguments: the opened files themselves (or their redacted copies)."""
        return [self._name(arg, source) for arg, source in self.opened.items()]

    @property
    def aliases(self) -> dict[bytes, bytes]:
        """What rg will print for each file → the path the first pass printed."""
        return {self._name(arg, source).encode(): arg for arg, source in self.opened.items()}

    @property
    def fds(self) -> tuple[int, ...]:
        return (*(source.fd for source in self.opened.values()), *self.copies.fds.values())

    async def search_redacted(self, args: Iterable[bytes]) -> None:
        """Search redacted copies of the files ``args`` instead of the files themselves."""
        chosen = {arg: self.opened[arg] for arg in args if arg in self.opened}
        if chosen:
            self.copies = await redacted_copies(chosen)

    def close(self) -> None:
        self.copies.close()
        for source in self.opened.values():
            source.close()
        self.opened.clear()

    def __enter__(self) -> PageSources:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def _open_page(directory: Opened, page: list[MatchingFile]) -> PageSources:
    sources = PageSources()
    try:
        for entry in page:
            shown = os.fsdecode(entry.arg)
            try:
                source = open_below(directory, shown)
            except OctoError:
                continue  # gone, or swapped for a link since the first pass: not read
            if source.is_file:
                sources.opened[entry.arg] = source
            else:
                source.close()
    except BaseException:
        sources.close()
        raise
    return sources


async def open_page(directory: Opened, page: list[MatchingFile]) -> PageSources:
    """The page's regular files, opened below the opened ``directory`` in one worker-thread
    hop (the caller closes them)."""
    return await anyio.to_thread.run_sync(_open_page, directory, page)


async def learn_key_bodies(scan: PageScan, sources: PageSources) -> None:
    """Make the lines ``scan`` kept that lie inside a private key of their file known to the
    call as key lines (every answer hides them whole).

    A match on a key's body line comes without the BEGIN line that would tell; the file
    tells. Only files showing a line shaped like key material are read again.
    """
    suspects = [
        arg
        for arg in sources.opened
        if any(_KEY_BODY_LIKE.fullmatch(text) for _, text, _ in scan.lines_of(arg))
    ]
    if not suspects:
        return

    def find() -> dict[bytes, list[int]]:
        return {
            arg: key_body_lines(sources.opened[arg].read_bytes().decode("utf-8", "replace"))
            for arg in suspects
        }

    for arg, numbers in (await anyio.to_thread.run_sync(find)).items():
        scan.learn_key_bodies(arg, set(numbers))
