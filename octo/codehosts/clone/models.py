"""Query and result models of githubCloneRepo (GitHub; GitLab with provider "gitlab")."""

from __future__ import annotations

from pydantic import Field
from pydantic import field_validator

from octo.codehosts.models.code import RemoteQuery
from octo.codehosts.models.patterns import GitRef
from octo.core.queries import ToolResult
from octo.core.queries import optional


class CloneRepoQuery(RemoteQuery):
    """One githubCloneRepo query."""

    owner: str = Field(min_length=1, max_length=200, description="Repository owner or group.")
    repo: str = Field(min_length=1, max_length=150, description="Repository name.")
    ref: GitRef | None = optional("Branch, tag or sha; default branch.")
    sparsePath: str | None = optional("Only this folder (or file).", min_length=1, max_length=500)
    forceRefresh: bool = Field(
        default=False, description="Download again even when this commit is already cloned."
    )

    @field_validator("sparsePath")
    @classmethod
    def _sparse_ok(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = [p for p in value.strip().strip("/").split("/") if p not in ("", ".")]
        if not parts or ".." in parts or "\\" in value or "\0" in value:
            raise ValueError("sparsePath: a folder inside the repository, e.g. src/core")
        return "/".join(parts)


class CloneRepoResult(ToolResult):
    localPath: str = Field(description="The clone's folder: a root of the local tools.")
    owner: str
    repo: str
    ref: str | None = None
    commit: str = Field(description="The full sha of the snapshot.")
    sparsePath: str | None = None
    sizeBytes: int = Field(description="Unpacked size.")
    fileCount: int
    reused: bool = Field(description="True when an earlier clone of this commit was reused.")
