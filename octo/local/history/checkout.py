"""The checkout a query names: its path resolved under the allowed roots, then its git data
found without leaving them (``octo.transports.git.find_checkout``)."""

from __future__ import annotations

import anyio

from octo.contract import QueryContext
from octo.transports.git import Checkout
from octo.transports.git import find_checkout


async def checkout_of(ctx: QueryContext, raw: str) -> Checkout:
    """The checkout holding ``raw`` (a file or a folder below the allowed roots)."""
    paths = ctx.paths

    def found() -> Checkout:
        return find_checkout(paths.resolve(raw), lambda p: paths.root_of(p) is not None)

    return await anyio.to_thread.run_sync(found)
