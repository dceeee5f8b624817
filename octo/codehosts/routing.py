"""The host a query goes to, and the words every code-host tool uses of it.

Which code host answers: the one the query's ``provider`` names, or GitLab when the query
names none and only GitLab is configured. Then the hints every tool words alike: next calls
on the same host, paging, the follow-up reminder, and the decoration of a not-found error.
"""

from __future__ import annotations

from collections.abc import Iterator
from collections.abc import Mapping
from contextlib import contextmanager

from octo.codehosts.github.backend import GitHubBackend
from octo.codehosts.gitlab.backend import GitLabBackend
from octo.codehosts.gitlab.policy import gitlab_token
from octo.codehosts.host import CodeHost
from octo.codehosts.models import RemoteQuery
from octo.contract import QueryContext
from octo.core.errors import NotFoundError
from octo.core.formats import next_call


def gitlab_is_default(env: Mapping[str, str]) -> bool:
    """True when GitLab is configured and GitHub is not: queries without provider go to GitLab."""
    gitlab = bool(gitlab_token(env) or env.get("GITLAB_HOST"))
    github = bool(env.get("GITHUB_TOKEN") or env.get("GH_TOKEN") or env.get("GITHUB_API_URL"))
    return gitlab and not github


def choose_host(ctx: QueryContext, query: RemoteQuery) -> CodeHost:
    """The runtime's backend of the host that answers ``query``."""
    name = query.provider
    if "provider" not in query.model_fields_set and gitlab_is_default(ctx.config.env):
        name = "gitlab"
    if name == "gitlab":
        return ctx.backend(GitLabBackend)
    return ctx.backend(GitHubBackend)


#: The host the tools answer from when a query does not say.
DEFAULT_PROVIDER = "github"


def call(host: CodeHost, tool: str, **args: str | int | bool) -> str:
    """A next call on ``host``: ``githubViewRepoStructure {"provider":"gitlab","owner":"o"}``."""
    provider = {} if host.provider == DEFAULT_PROVIDER else {"provider": host.provider}
    return next_call(tool, {**provider, **args})


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
