"""The host a query goes to, and the words every code-host tool uses of it.

Which code host answers: the hosts file entry the query's ``host`` (or repository URL)
names or its owner matches, else the environment's host its ``provider`` names (GitLab when
the query names none and only GitLab is configured). Then the hints every tool words alike:
next calls on the same host, paging, the follow-up reminder, and the decoration of a
not-found error.
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
from octo.codehosts.hosts.hosts_file import HOSTS_FILE
from octo.codehosts.hosts.hosts_file import HostEntry
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
    """The runtime's backend of the host that answers ``query``.

    With ``host`` (given, or a repository URL's web host): the hosts file entry it names,
    else the environment's host of that name; InvalidQueryError naming the configured
    hosts when none is. Else the hosts file's first entry its owner matches, else the
    environment's host of its provider (GitLab's when only GitLab is configured)."""
    hosts = ctx.backend(HostSet)
    kind = query.provider if "provider" in query.model_fields_set else None
    if hosts.entries:
        entry = pick(hosts.entries, kind, getattr(query, "owner", None), query.host)
        if entry is not None:
            return hosts.backend(entry)
    environment = _environment_hosts(ctx, kind)
    if query.host is None:
        return ctx.backend(environment[0])
    named = query.host.lower()
    # The other kind's host is built only when the first is not the one named.
    found = next(
        (ctx.backend(cls) for cls in environment if named in ctx.backend(cls).host_names), None
    )
    if found is None:
        configured = [
            *(_shown(e) for e in hosts.entries),
            *(web_name(ctx.backend(cls)) for cls in environment),
        ]
        raise InvalidQueryError(
            f"host {query.host!r} is not a configured code host",
            hints=[
                f"Configured hosts: {', '.join(configured)}; "
                f"more go in the hosts file ({HOSTS_FILE}, web_hosts for their URLs)."
            ],
        )
    return found


def web_host_entry(ctx: QueryContext, web_host: str) -> CodeHost | None:
    """The backend of the hosts file entry listing ``web_host`` in its ``web_hosts`` (a
    checkout's ``origin`` remote names its host so); None when none does."""
    hosts = ctx.backend(HostSet)
    named = web_host.lower()
    entry = next((e for e in hosts.entries if named in (h.lower() for h in e.web_hosts)), None)
    return None if entry is None else hosts.backend(entry)


def _environment_hosts(ctx: QueryContext, kind: str | None) -> list[type[CodeHost]]:
    """The environment's hosts a query may go to: its provider's, or (unsaid) the default
    one first, then the other."""
    if kind is not None:
        return [GitLabBackend if kind == "gitlab" else GitHubBackend]
    if gitlab_is_default(ctx.config.env):
        return [GitLabBackend, GitHubBackend]
    return [GitHubBackend, GitLabBackend]


def _shown(entry: HostEntry) -> str:
    return f"{entry.name} ({', '.join(entry.web_hosts) or entry.api_host})"


def web_name(host: CodeHost) -> str:
    """How an answer names the host that gave it: its hosts file name, else its web host."""
    if host.entry is not None:
        return host.entry.name
    return host.web_host


def host_of(ctx: QueryContext, query: RemoteQuery, repository: str) -> CodeHost:
    """The backend answering ``query`` for one of the repositories it names ("owner/repo"):
    with a hosts file, each repository goes where its owner routes it."""
    owner, _, repo = repository.rpartition("/")
    return choose_host(ctx, query.model_copy(update={"owner": owner, "repo": repo, "repos": None}))


#: The host the tools answer from when a query does not say.
DEFAULT_PROVIDER = "github"


def call(host: CodeHost, tool: str, **args: str | int | bool) -> str:
    """A next call on ``host``: ``githubViewRepoStructure {"provider":"gitlab","owner":"o"}``;
    a hosts file's host by its name (``"host":"company"``), so the call goes there again."""
    if host.entry is not None:
        return next_call(tool, {"host": host.entry.name, **args})
    provider = {} if host.provider == DEFAULT_PROVIDER else {"provider": host.provider}
    return next_call(tool, {**provider, **args})


def more_hint(page: int, noun: str = "results") -> str:
    """The hint to the page after ``page``."""
    return f"More {noun}: page={page + 1}."


def follow_up_hints(host: CodeHost) -> list[str]:
    """Which host answered, when the hosts file configures it, and the reminder an answer
    needs when its next steps do not name a non-default host."""
    if host.entry is not None:
        name = host.entry.name
        return [f'Host "{name}" answered: follow-up tools need host="{name}" as well.']
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
