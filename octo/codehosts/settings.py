"""How long code-host answers stay cached, and what a clone may hold: one set of settings
that GitHub and GitLab share."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from octo.core.config import env_bytes
from octo.core.config import env_seconds
from octo.core.config import lifetime
from octo.core.config import read_settings
from octo.core.config import setting
from octo.core.config import whole


@dataclass(frozen=True)
class CodeHostSettings:
    """Cache lifetimes of the code hosts' answers, in seconds (0: always revalidate), and the
    limits of the clone folder.

    The lifetimes' variables say GitHub because they came first; GitLab's answers keep the
    same lifetimes, so one set of variables serves both.
    """

    ttl_code_search: float = setting(3600.0, "OCTO_GITHUB_TTL_CODE_SEARCH", lifetime)
    ttl_file_content: float = setting(3600.0, "OCTO_GITHUB_TTL_FILE_CONTENT", lifetime)
    ttl_repo_search: float = setting(7200.0, "OCTO_GITHUB_TTL_REPO_SEARCH", lifetime)
    ttl_pull_requests: float = setting(1800.0, "OCTO_GITHUB_TTL_PULL_REQUESTS", lifetime)
    ttl_tree: float = setting(3600.0, "OCTO_GITHUB_TTL_TREE", lifetime)
    #: Issues change like pull requests do (spec 002's 30 minutes).
    ttl_issues: float = setting(1800.0, "OCTO_GITHUB_TTL_ISSUES", lifetime)
    #: A commit never changes, a history page rarely: the file-content hour.
    ttl_commits: float = setting(3600.0, "OCTO_GITHUB_TTL_COMMITS", lifetime)
    #: What a branch or tag points at moves: asked again after five minutes.
    ttl_refs: float = setting(300.0, "OCTO_GITHUB_TTL_REFS", lifetime)
    #: Unpacked bytes (files, headers, folders) and entries (files, folders) one clone may hold.
    clone_max_bytes: int = setting(500 * 1024 * 1024, "OCTO_CLONE_MAX_BYTES", env_bytes)
    clone_max_files: int = setting(100_000, "OCTO_CLONE_MAX_FILES", whole(1, 10**8))
    #: Clones downloading or extracting at once (each a file on disk and a child process).
    clone_max_concurrent: int = setting(2, "OCTO_CLONE_MAX_CONCURRENT", whole(1, 64))
    #: Clones older than this are removed, and the least recently used beyond the total.
    clone_max_age: float = setting(7 * 24 * 3600.0, "OCTO_CLONE_MAX_AGE", env_seconds)
    clone_max_total: int = setting(5 * 1024 * 1024 * 1024, "OCTO_CLONE_MAX_TOTAL", env_bytes)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> CodeHostSettings:
        """The settings the environment's ``OCTO_GITHUB_TTL_*`` and ``OCTO_CLONE_*`` say."""
        return read_settings(cls, env)
