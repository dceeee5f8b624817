"""Language servers started ahead of the first query, for roots an MCP client announced.

A server's first answer costs its start and first indexing (seconds on a large tree); done
in the background as soon as the roots are known, the first query finds it ready. Per root,
the language with the most source files near the top of the tree gets its first server,
opened on one of those files, as a query would open it. A root without a source file of a
supported language starts nothing, and warming never stops a running server to make room.
"""

from __future__ import annotations

import logging
import os
from collections import Counter
from collections import deque
from pathlib import Path

import anyio

from octo.contract import QueryContext
from octo.core.errors import OctoError
from octo.core.files.paths import PathPolicy
from octo.core.files.paths import is_generated
from octo.lsp.servers.running.pool import LspPool
from octo.lsp.servers.running.pool import open_on
from octo.lsp.servers.table.commands import language_of
from octo.lsp.servers.wire.documents import Source

logger = logging.getLogger("octo.lsp")

#: Directory entries looked at per root to choose its language.
MAX_ENTRIES = 5000
#: Languages of data and markup files: many of them say nothing about a project's code.
_NOT_WARMED = frozenset({"json", "yaml", "css", "html", "dockerfile"})


def sample_source(paths: PathPolicy, root: Path, max_entries: int = MAX_ENTRIES) -> Path | None:
    """A source file of the language most files near the top of ``root`` are in (the
    shallowest of them), skipping dot-folders, generated ones and what ``paths`` fences;
    None when there is none. Blocking."""
    fenced = {root / rel for rel in paths.fenced_below(root)}
    counts: Counter[str] = Counter()
    first: dict[str, Path] = {}
    pending = deque([root])
    seen = 0
    while pending and seen < max_entries:
        try:
            entries = sorted(os.scandir(pending.popleft()), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if fenced and Path(entry.path) in fenced:
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not is_generated(entry.name):
                        pending.append(Path(entry.path))
                    continue
                if not entry.is_file(follow_symlinks=False):
                    continue
            except OSError:
                continue
            language = language_of(Path(entry.name))
            if language is not None and language.family not in _NOT_WARMED:
                counts[language.family] += 1
                first.setdefault(language.family, Path(entry.path))
    if not counts:
        return None
    family, _ = counts.most_common(1)[0]
    return first[family]


async def warm_roots(ctx: QueryContext) -> None:
    """Start (and open a file on) the first server of each root's main language."""
    pool = ctx.backend(LspPool)
    for root in ctx.paths.roots:
        if not pool.has_room():
            return
        sample = await anyio.to_thread.run_sync(sample_source, ctx.paths, root)
        if sample is None:
            continue
        try:
            source = await anyio.to_thread.run_sync(Source.read, sample)
            slot = await open_on(pool, source, pool.language(sample), root)
        except (OctoError, OSError) as exc:
            logger.info("no language server warmed for %s: %s", root, exc)
            continue
        logger.info("%s is warm for %s (opened %s)", slot.server_id, slot.root, sample)
