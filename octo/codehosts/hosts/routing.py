"""The host a query goes to, and the words every code-host tool uses of it.

Which code host answers: the one the query's ``provider`` names, or GitLab when the query
names none and only GitLab is configured. Then the hints every tool words alike: next calls
on the same host, paging, the follow-up reminder, and the decoration of a not-found error.
"""

from __future__ import annotations

from collections.abc import Iterator
from collections.abc import Mapping
from contextlib import contextmanager

from octo.codehosts.hosts.github.backend import GitHubBackend
from octo.codehosts.hosts.gitlab.backend import GitLabBackend
from octo.codehosts.hosts.gitlab.policy import gitlab_token
from octo.codehosts.hosts.host import CodeHost
from octo.codehosts.hosts.host_set import HostSet
from octo.codehosts.hosts.hosts_file import pick
from octo.codehosts.models.code import RemoteQuery
from octo.contract import QueryContext
from octo.core.errors import InvalidQueryError
from octo.core.errors import NotFoundError
from octo.core.formats import next_call


def gitlab_is_default(env: Mapping[str, str]) -> bool:
    """True when GitLab is configured and GitHub is not: queries without provider go to GitLab."""
    gitlab = bool(gitlab_token(env) or env.get("GITLAB_HOST"))
    github = bool(env.get("GITHUB_TOKEN") or env.get("GH_TOKEN") or env.get("GITHUB_API_URL"))
    return gitlab and not github


def choose_host(ctx: QueryContext, query: RemoteQuery) -> CodeHost:
    """The runtime's backend of the host that answers ``query``: with a hosts file, the
    entry its ``host`` names or the first its owner matches (InvalidQueryError for a
    ``host`` no entry has); else, or when no entry fits, the environment's."""
    hosts = ctx.backend(HostSet)
    if hosts.entries:
        kind = query.provider if "provider" in query.model_fields_set else None
        named: str | None = getattr(query, "host", None)
        entry = pick(hosts.entries, kind, getattr(query, "owner", None), named)
        if entry is not None:
            return hosts.backend(entry)
        if named is not None:
            names = ", ".join(e.name for e in hosts.entries)
            raise InvalidQueryError(
                f"host {named!r} is not in the hosts file", hints=[f"Configured hosts: {names}."]
            )
    name = query.provider
    if "provider" not in query.model_fields_set and gitlab_is_default(ctx.config.env):
        name = "gitlab"
    if name == "gitlab":
        return ctx.backend(GitLabBackend)
    return ctx.backend(GitHubBackend)


def host_of(ctx: QueryContext, query: RemoteQuery, repository: str) -> CodeHost:
    """The backend answering ``query`` for one of the repositories it names ("owner/repo"):
    with a hosts file, each repository goes where its owner routes it."""
    owner, _, repo = repository.rpartition("/")
    return choose_host(ctx, query.model_copy(update={"owner": owner, "repo": repo, "repos": None}))


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
