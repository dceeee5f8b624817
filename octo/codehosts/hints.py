"""The hints every code-host tool words alike: next calls on the same host, paging, the
follow-up reminder, and the decoration of a not-found error."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from octo.codehosts.host import CodeHost
from octo.core.errors import NotFoundError

#: The host the tools answer from when a query does not say.
DEFAULT_PROVIDER = "github"


def call(host: CodeHost, tool: str, **args: str | int) -> str:
    """A next call on ``host``: ``githubViewRepoStructure (provider gitlab, owner="o")``."""
    parts = [] if host.provider == DEFAULT_PROVIDER else [f"provider {host.provider}"]
    parts += [
        f'{key}="{value}"' if isinstance(value, str) else f"{key}={value}"
        for key, value in args.items()
    ]
    return f"{tool} ({', '.join(parts)})" if parts else tool


def more_hint(page: int, noun: str = "results") -> str:
    """The hint to the page after ``page``."""
    return f"More {noun}: page={page + 1}."


def follow_up_hints(host: CodeHost) -> list[str]:
    """The reminder an answer needs when its next steps do not name a non-default host."""
    if host.provider == DEFAULT_PROVIDER:
        return []
    return [f'Follow-up tools need provider="{host.provider}" as well.']


@contextmanager
def not_found_hints(*hints: str) -> Iterator[None]:
    """Raise a NotFoundError from inside with ``hints`` added.

    The error is copied, never changed: coalesced requests hand one error to every waiter.
    """
    try:
        yield
    except NotFoundError as exc:
        raise exc.with_hints(*hints) from None
