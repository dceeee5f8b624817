"""GitHub's side of the transport: where its API is, the token, and its rate-limit policy.

The token is GITHUB_TOKEN, else GH_TOKEN, else what `gh auth token` answers (asked once,
for the host of the configured API URL). :class:`GitHubPolicy` reads the
``x-ratelimit-*`` headers and recognises GitHub's secondary limits.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Mapping
from urllib.parse import urlparse

import anyio
import httpx

from octo.transports.http.policy import Backoff
from octo.transports.http.policy import HostPolicy
from octo.transports.http.policy import RateLimit
from octo.transports.http.policy import rate_limit_from_headers
from octo.transports.processes import command_output

DEFAULT_API_URL = "https://api.github.com"
API_VERSION = "2022-11-28"
_GH_TIMEOUT = 5.0

AUTH_HINTS = (
    "Set GITHUB_TOKEN (or GH_TOKEN) in the environment, or run `gh auth login`.",
    "A fine-grained token needs read access to the repository's contents and pull requests.",
)


def api_url(env: Mapping[str, str]) -> str:
    """GITHUB_API_URL (GitHub Enterprise: ``https://HOST/api/v3``), else the public API."""
    return (env.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/")


def web_host(api_url: str) -> str:
    """The host ``gh`` knows an API URL by: api.github.com -> github.com, HOST/api/v3 -> HOST."""
    host = urlparse(api_url).hostname or "github.com"
    return host.removeprefix("api.")


class GitHubAuth:
    """The token: GITHUB_TOKEN, then GH_TOKEN, then `gh auth token`; looked up once."""

    def __init__(
        self,
        env: Mapping[str, str],
        api_url: str,
        source: Callable[[], Awaitable[str | None]] | None = None,
    ) -> None:
        self._env = env
        # A hosts file entry's token source replaces the environment's and gh's.
        self._source = source
        self._host = web_host(api_url)
        self._token: str | None = None
        self._resolved = False
        self._lock = anyio.Lock()

    async def token(self) -> str | None:
        if not self._resolved:
            async with self._lock:
                if not self._resolved:
                    self._token = (
                        await self._source()
                        if self._source is not None
                        else self._env.get("GITHUB_TOKEN")
                        or self._env.get("GH_TOKEN")
                        or await self._gh_token()
                    )
                    self._resolved = True
        return self._token

    @property
    def known_token(self) -> str | None:
        """The token if it was already looked up (for scrubbing; never triggers a lookup)."""
        return self._token

    async def _gh_token(self) -> str | None:
        gh = shutil.which("gh", path=self._env.get("PATH"))
        if gh is None:
            return None
        args = [gh, "auth", "token"]
        if self._host != "github.com":
            args += ["--hostname", self._host]
        with anyio.move_on_after(_GH_TIMEOUT):
            return await command_output(args, self._env or os.environ)
        return None


class GitHubPolicy(HostPolicy):
    """GitHub's headers, rate-limit resources and secondary-limit wording."""

    name = "GitHub"
    auth_hints = AUTH_HINTS
    rate_limit_hints = (
        "Narrow the query (owner/repo, a path or extension) so fewer calls are needed.",
        "Use the local tools (localSearchCode) on a clone as an alternative.",
        "Answers are cached: repeating a query costs no quota.",
    )
    # GitHub asks for at least a minute after a secondary limit; retrying sooner risks a ban.
    secondary_backoff = Backoff(first=60.0, maximum=300.0, attempts=4, jitter=5.0)

    def __init__(self, auth: GitHubAuth) -> None:
        self.auth = auth

    async def headers(self) -> dict[str, str]:
        headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": API_VERSION,
        }
        token = await self.auth.token()
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return headers

    def secrets(self) -> tuple[str, ...]:
        token = self.auth.known_token
        return (token,) if token else ()

    def resource_for(self, path: str) -> str:
        path = path.rstrip("/")
        if path.endswith("/search/code"):
            return "code_search"
        if "/search/" in path:
            return "search"
        # GraphQL (the blame, closing issues) has a quota of its own.
        return "graphql" if path.endswith("/graphql") else "core"

    def concurrency(self, resource: str) -> int:
        # Code search is 10/min with a strict secondary limit: one bulk (3 queries) at a time.
        return {"code_search": 3, "search": 4}.get(resource, 8)

    def rate_limit(self, response: httpx.Response) -> RateLimit | None:
        resource = response.headers.get("x-ratelimit-resource")
        return rate_limit_from_headers(
            response.headers,
            "x-ratelimit-",
            resource or self.resource_for(response.request.url.path),
        )

    def is_secondary_limit(self, response: httpx.Response) -> bool:
        text = response.text.lower()
        if "secondary rate limit" in text or "abuse detection" in text:
            return True
        return super().is_secondary_limit(response)
