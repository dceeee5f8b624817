"""Which code host answers a query: the one its ``provider`` names, or GitLab when the query
names none and only GitLab is configured."""

from __future__ import annotations

from collections.abc import Mapping

from octo.codehosts.github import GitHubBackend
from octo.codehosts.gitlab import GitLabBackend
from octo.codehosts.gitlab_policy import gitlab_token
from octo.codehosts.host import CodeHost
from octo.codehosts.models import RemoteQuery
from octo.contract import QueryContext


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
