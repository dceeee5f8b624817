"""git on the checkout a query names: its path resolved under the allowed roots, its git
data found without leaving them (``octo.transports.git.find_checkout``), then git run,
all in one worker-thread hop."""

from __future__ import annotations

from octo.contract import QueryContext
from octo.transports.git import Arguments
from octo.transports.git import Checkout
from octo.transports.git import GitOutput
from octo.transports.git import find_checkout
from octo.transports.git import locate_and_run


async def git_on(
    ctx: QueryContext, raw: str, arguments: Arguments, *, max_bytes: int
) -> tuple[Checkout, GitOutput]:
    """The checkout holding ``raw`` (a file or a folder below the allowed roots) and what
    git printed for ``arguments(checkout)``."""
    paths = ctx.paths

    def found() -> Checkout:
        return find_checkout(paths.resolve(raw), lambda p: paths.root_of(p) is not None)

    return await locate_and_run(found, arguments, ctx.config.env, max_bytes=max_bytes)
