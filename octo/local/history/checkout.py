"""git on the checkout a query names: its path resolved under the allowed roots, its git
data found without leaving them (``octo.transports.git.find_checkout``), then the git
commands run, all in one worker-thread hop, within the time limit (``OCTO_GIT_TIME_LIMIT``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from octo.contract import QueryContext
from octo.transports.git import Checkout
from octo.transports.git import Commands
from octo.transports.git import GitOutput
from octo.transports.git import GitProcesses
from octo.transports.git import find_checkout
from octo.transports.git import locate_and_run

T = TypeVar("T")


async def git_on(
    ctx: QueryContext,
    raw: str,
    commands: Commands,
    read: Callable[[Checkout, list[GitOutput]], T],
    *,
    max_bytes: int,
) -> T:
    """What ``read`` makes of git's output for ``commands(checkout)`` on the checkout
    holding ``raw`` (a file or a folder below the allowed roots), in the worker thread."""
    paths = ctx.paths

    def found() -> Checkout:
        return find_checkout(paths.resolve(raw), lambda p: paths.root_of(p) is not None)

    return await locate_and_run(
        found,
        commands,
        read,
        ctx.config.env,
        ctx.backend(GitProcesses),
        max_bytes=max_bytes,
        time_limit=ctx.config.git_time_limit,
    )
