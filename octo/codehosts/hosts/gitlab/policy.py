"""GitLab's side of the transport: where the instance is, the token, and its rate-limit policy.

gitlab.com or a self-managed instance (``GITLAB_HOST``, a relative root such as
``https://host/gitlab`` allowed); ``GITLAB_TOKEN`` or ``GL_TOKEN`` is sent as
``PRIVATE-TOKEN``, and public projects answer without one.
"""

from __future__ import annotations

from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Mapping

import httpx

from octo.codehosts.models.url_segments import file_path
from octo.codehosts.models.url_segments import segment
from octo.transports.http.policy import HostPolicy
from octo.transports.http.policy import RateLimit
from octo.transports.http.policy import rate_limit_from_headers

DEFAULT_HOST = "https://gitlab.com"

_AUTH_HINTS = (
    "Set GITLAB_TOKEN (or GL_TOKEN) to a token with the read_api scope.",
    "For a self-managed instance set GITLAB_HOST (e.g. https://gitlab.example.com).",
)


def gitlab_token(env: Mapping[str, str]) -> str | None:
    """GITLAB_TOKEN, else GL_TOKEN, else None (public projects only)."""
    return env.get("GITLAB_TOKEN") or env.get("GL_TOKEN") or None


def web_root(env: Mapping[str, str]) -> str:
    """The instance's web root, relative root included: GITLAB_HOST or gitlab.com."""
    host = (env.get("GITLAB_HOST") or DEFAULT_HOST).strip().rstrip("/")
    if "://" not in host:
        host = f"https://{host}"
    return host.removesuffix("/api/v4")


def project_id(owner: str, repo: str) -> str:
    """A project's id in API paths: its full path, group levels included, URL-encoded."""
    return segment(f"{owner.strip('/')}/{repo.strip('/')}", "repository")


def blob_url(web_root: str, repository: str, ref: str, path: str) -> str:
    """The web page of a file of ``repository`` (its full path) at ``ref``."""
    return f"{web_root}/{repository}/-/blob/{file_path(ref, 'ref')}/{file_path(path)}"


def namespace_id(owner: str) -> str:
    """A group's (or user's) id in API paths: its full path, URL-encoded."""
    return segment(owner, "owner")


class GitLabPolicy(HostPolicy):
    """GitLab's token header, ``RateLimit-*`` headers and search resource."""

    name = "GitLab"
    auth_hints = _AUTH_HINTS
    rate_limit_hints = (
        "Narrow the query (owner/repo, a path) so fewer calls are needed.",
        "Answers are cached: repeating a query costs no quota.",
    )

    def __init__(
        self, token: str | None, source: Callable[[], Awaitable[str | None]] | None = None
    ) -> None:
        self._token = token
        # A hosts file entry's token source, read on the first request.
        self._source = source

    async def headers(self) -> dict[str, str]:
        if self._source is not None:
            self._token, self._source = await self._source(), None
        return {"PRIVATE-TOKEN": self._token} if self._token else {}

    def secrets(self) -> tuple[str, ...]:
        return (self._token,) if self._token else ()

    def resource_for(self, path: str) -> str:
        return "search" if path.rstrip("/").endswith("/search") else "core"

    def concurrency(self, resource: str) -> int:
        return 3 if resource == "search" else 8

    def rate_limit(self, response: httpx.Response) -> RateLimit | None:
        return rate_limit_from_headers(
            response.headers, "ratelimit-", self.resource_for(response.request.url.path)
        )

    def error_message(self, response: httpx.Response) -> str:
        try:
            body = response.json()
        except ValueError:
            return super().error_message(response)
        # Validation errors come as {"message": {"field": ["problem"]}}.
        if isinstance(body, Mapping) and isinstance(body.get("message"), Mapping):
            return "; ".join(f"{k}: {v}" for k, v in body["message"].items())[:500]
        return super().error_message(response)
