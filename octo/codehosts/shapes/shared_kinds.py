"""The type of each kind of answer the code hosts' clients cache, by the ``kind`` their
fetches name: how a team's replicas read back what another one shared (JSON validated
into these). A kind missing here would be cached in each process alone:
tests/codehosts/shapes/test_shared_kinds.py fails on every kind a fetch names that has no shape
here, and on a shape its answers do not travel through. GitLab's backend adds the kinds of
its own parsed pages (:data:`octo.codehosts.hosts.gitlab.backend.GITLAB_PAGES`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from octo.codehosts.models.history import PullRequestComment
from octo.codehosts.models.history import PullRequestCommit
from octo.codehosts.models.history import PullRequestFile
from octo.codehosts.shapes.code import CodeSearchPage
from octo.codehosts.shapes.code import FileBlob
from octo.codehosts.shapes.code import Listing
from octo.codehosts.shapes.code import RepositoryPage
from octo.codehosts.shapes.code import RepoTree
from octo.codehosts.shapes.code import TreeRow
from octo.codehosts.shapes.history import CommitDetail
from octo.codehosts.shapes.history import CommitPage
from octo.codehosts.shapes.history import IssuePage
from octo.codehosts.shapes.history import PullRequestPage

GITHUB_SHAPES: Mapping[str, Any] = {
    "code-search": CodeSearchPage,
    "file": FileBlob,
    "blob": FileBlob,
    "tree": RepoTree,
    "repo-search": RepositoryPage,
    "pull": PullRequestPage,
    "pull-search": PullRequestPage,
    "pull-comments": Listing[PullRequestComment],
    "pull-commits": Listing[PullRequestCommit],
    "pull-files": Listing[PullRequestFile],
    "issue-search": IssuePage,
    "issue": IssuePage,
    "commit-search": CommitPage,
    "commit-history": CommitPage,
    "commit": CommitDetail,
    "compare": CommitDetail,
    "commit-sha": str,
    "owner-repos": Listing[str],
}

GITLAB_SHAPES: Mapping[str, Any] = {
    "gitlab-file": FileBlob,
    "gitlab-tree": Listing[TreeRow],
    "gitlab-mr": PullRequestPage,
    "gitlab-mrs": PullRequestPage,
    "gitlab-mr-notes": Listing[PullRequestComment],
    "gitlab-mr-commits": Listing[PullRequestCommit],
    "gitlab-mr-diffs": Listing[PullRequestFile],
    "gitlab-mr-changes": Listing[PullRequestFile],
    "gitlab-issues": IssuePage,
    "gitlab-issue": IssuePage,
    "gitlab-commit-search": CommitPage,
    "gitlab-commit-history": CommitPage,
    "gitlab-commit": CommitDetail,
    "gitlab-compare": CommitDetail,
    "gitlab-commit-sha": str,
    "gitlab-owner-repos": Listing[str],
}
