"""git on the checkout a query names: its path resolved under the allowed roots, its git
data found without leaving them (``octo.transports.git.find_checkout``), then the git
commands run, all in one worker-thread hop, within :data:`TIME_LIMIT`; and the answer made
of what they found."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol
from typing import TypeVar

from octo.contract import Answer
from octo.contract import QueryContext
from octo.core.queries import ToolResult
from octo.transports.git import Checkout
from octo.transports.git import Commands
from octo.transports.git import GitOutput
from octo.transports.git import find_checkout
from octo.transports.git import locate_and_run

#: Seconds git may take for one answer: past them it is stopped and the answer is partial
#: (an answer within 5 s, whatever the history's size).
TIME_LIMIT = 4.0

T = TypeVar("T")
R = TypeVar("R", bound=ToolResult)


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
        found, commands, read, ctx.config.env, max_bytes=max_bytes, time_limit=TIME_LIMIT
    )


class GitRead(Protocol):
    """What reading git's output left to say: it was cut (a byte or time limit), or git was
    stopped at its time limit."""

    @property
    def cut(self) -> bool: ...

    @property
    def timed_out(self) -> bool: ...


def git_answer(result: R, read: GitRead, found: str, fewer: str) -> Answer[R]:
    """``result`` as an answer, partial when git's output was cut; when git was stopped at
    :data:`TIME_LIMIT`, a hint that only the ``found`` by then are shown and how to have all
    of them (``fewer``)."""
    answer = Answer(result, partial=read.cut)
    if read.timed_out:
        answer.hint(
            f"git was stopped after {TIME_LIMIT:g} s: the {found} found by then are shown; "
            f"{fewer} to have all of them."
        )
    return answer
