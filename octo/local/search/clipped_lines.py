"""Search matches whose lines were clipped at MAX_LINE_CHARS (minified code, data on one line)
get a content handle to their whole lines, read again from the file.

Clipping is rare and the answer already holds the line numbers, so the whole lines are read
back once per file rather than carried through every search. A handle holds the lines as octo
shows them (the file's shown text, :func:`as_shown`): its pages are redacted again when
getCachedContent serves them, but one page alone no longer tells a private key's body line
from its BEGIN line, nor a value assigned in another line of the file.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import anyio

from octo.contract import QueryContext
from octo.core.errors import OctoError
from octo.core.files.confined import open_confined
from octo.core.files.paths import PathPolicy
from octo.core.queries import ToolQuery
from octo.core.secrets.redaction import as_shown
from octo.local.matched_lines import MAX_LINE_CHARS
from octo.local.models import SearchMatch
from octo.local.search.models import SearchFile

#: The hint of an answer with clipped lines.
CLIPPED_HINT = (
    f"Lines over {MAX_LINE_CHARS} characters are clipped; their matches carry a contentHandle: "
    'getCachedContent {"handle": contentHandle} reads them whole.'
)


def _clipped(match: SearchMatch) -> bool:
    lines = [*(match.beforeContext or ()), match.content, *(match.afterContext or ())]
    return any(len(line) > MAX_LINE_CHARS for line in lines)


def _span(match: SearchMatch) -> range:
    first = match.lineNumber - len(match.beforeContext or ())
    return range(first, match.lineNumber + len(match.afterContext or ()) + 1)


def _read_lines(paths: PathPolicy, path: Path, wanted: set[int]) -> dict[int, str]:
    """The lines numbered in ``wanted`` (from 1) of the file's shown text, whole, without
    their endings; read as opened without following a link swapped in since the search."""
    root = paths.root_of(path)
    if root is None:
        return {}
    try:
        with open_confined(root, path, path.name) as opened:
            text = opened.read_bytes().decode("utf-8", errors="replace")
    except (OSError, OctoError):
        return {}
    lines = as_shown(text).split("\n")
    return {n: lines[n - 1].rstrip("\r") for n in wanted if 0 < n <= len(lines)}


async def hand_clipped_lines(
    ctx: QueryContext, query: ToolQuery, root: Path, files: list[SearchFile]
) -> tuple[list[SearchFile], bool]:
    """``files`` (a page's, under ``root``) with a contentHandle on every match whose lines
    were clipped, and whether there was one. The handles are minted before the answer is
    measured, so its token count includes them; their content is the lines as shown, and
    leaves octo through getCachedContent, redacted there again like every answer."""
    wanted: dict[str, set[int]] = defaultdict(set)
    for file in files:
        for match in file.matches or ():
            if _clipped(match):
                wanted[file.path].update(_span(match))
    if not wanted:
        return files, False

    def read_all() -> dict[str, dict[int, str]]:
        return {
            path: _read_lines(ctx.paths, root / path, numbers) for path, numbers in wanted.items()
        }

    texts = await anyio.to_thread.run_sync(read_all)
    handed = []
    for file in files:
        matches = []
        for match in file.matches or ():
            whole = texts.get(file.path, {})
            lines = [whole[n] for n in _span(match) if n in whole]
            if _clipped(match) and lines:
                handle = await ctx.mint_handle("\n".join(lines), query)
                match = match.model_copy(update={"contentHandle": handle})
            matches.append(match)
        handed.append(file.model_copy(update={"matches": matches}) if file.matches else file)
    return handed, True
