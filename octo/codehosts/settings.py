"""How long code-host answers stay cached, and what a clone may hold: one set of settings
that GitHub and GitLab share."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from octo.core.config import env_bytes
from octo.core.config import env_int
from octo.core.config import env_seconds


@dataclass(frozen=True)
class CodeHostSettings:
    """Cache lifetimes of the code hosts' answers, in seconds (0: always revalidate), and the
    limits of the clone folder."""

    ttl_code_search: float = 3600.0
    ttl_file_content: float = 3600.0
    ttl_repo_search: float = 7200.0
    ttl_pull_requests: float = 1800.0
    ttl_tree: float = 3600.0
    #: Issues change like pull requests do (spec 002's 30 minutes).
    ttl_issues: float = 1800.0
    #: A commit never changes, a history page rarely: the file-content hour.
    ttl_commits: float = 3600.0
    #: What a branch or tag points at moves: asked again after five minutes.
    ttl_refs: float = 300.0
    #: Unpacked bytes and files one clone may hold.
    clone_max_bytes: int = 500 * 1024 * 1024
    clone_max_files: int = 100_000
    #: Clones older than this are removed, and the least recently used beyond the total.
    clone_max_age: float = 7 * 24 * 3600.0
    clone_max_total: int = 5 * 1024 * 1024 * 1024

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> CodeHostSettings:
        """``OCTO_GITHUB_TTL_{CODE_SEARCH,FILE_CONTENT,REPO_SEARCH,PULL_REQUESTS,TREE,ISSUES,
        COMMITS,REFS}`` and ``OCTO_CLONE_{MAX_BYTES,MAX_FILES,MAX_AGE,MAX_TOTAL}``.

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
            ttl_issues=ttl("ISSUES", cls.ttl_issues),
            ttl_commits=ttl("COMMITS", cls.ttl_commits),
            ttl_refs=ttl("REFS", cls.ttl_refs),
            clone_max_bytes=env_bytes(env, "OCTO_CLONE_MAX_BYTES", cls.clone_max_bytes),
            clone_max_files=env_int(env, "OCTO_CLONE_MAX_FILES", cls.clone_max_files, 1, 10**8),
            clone_max_age=env_seconds(env, "OCTO_CLONE_MAX_AGE", cls.clone_max_age),
            clone_max_total=env_bytes(env, "OCTO_CLONE_MAX_TOTAL", cls.clone_max_total),
        )
