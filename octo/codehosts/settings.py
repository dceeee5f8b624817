"""How long code-host answers stay cached: one set of lifetimes that GitHub and GitLab share."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from octo.core.config import env_seconds


@dataclass(frozen=True)
class CodeHostSettings:
    """Cache lifetimes of the code hosts' answers, in seconds (0: always revalidate)."""

    ttl_code_search: float = 3600.0
    ttl_file_content: float = 3600.0
    ttl_repo_search: float = 7200.0
    ttl_pull_requests: float = 1800.0
    ttl_tree: float = 3600.0

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> CodeHostSettings:
        """``OCTO_GITHUB_TTL_{CODE_SEARCH,FILE_CONTENT,REPO_SEARCH,PULL_REQUESTS,TREE}``.

        The names say GitHub because they came first; GitLab's answers keep the same
        lifetimes, so one set of variables serves both.
        """

        def ttl(name: str, default: float) -> float:
            return env_seconds(env, f"OCTO_GITHUB_TTL_{name}", default, zero_ok=True)

        return cls(
            ttl_code_search=ttl("CODE_SEARCH", cls.ttl_code_search),
            ttl_file_content=ttl("FILE_CONTENT", cls.ttl_file_content),
            ttl_repo_search=ttl("REPO_SEARCH", cls.ttl_repo_search),
            ttl_pull_requests=ttl("PULL_REQUESTS", cls.ttl_pull_requests),
            ttl_tree=ttl("TREE", cls.ttl_tree),
        )
