"""The five code-host tools (GitHub; GitLab with provider "gitlab"); words in tools.toml."""

from __future__ import annotations

from octo.codehosts.models import FileContentQuery
from octo.codehosts.models import FileContentResult
from octo.codehosts.models import RepoStructureQuery
from octo.codehosts.models import RepoStructureResult
from octo.codehosts.models import SearchCodeQuery
from octo.codehosts.models import SearchCodeResult
from octo.codehosts.models import SearchPullRequestsQuery
from octo.codehosts.models import SearchPullRequestsResult
from octo.codehosts.models import SearchRepositoriesQuery
from octo.codehosts.models import SearchRepositoriesResult
from octo.contract import ToolCategory
from octo.contract.family import Binding
from octo.contract.family import family_tools

TOOLS = family_tools(
    __package__,
    ToolCategory.GITHUB,
    {
        "githubSearchCode": Binding(
            SearchCodeQuery,
            SearchCodeResult,
            "octo.codehosts.search_code:search_code",
            3,
            places="octo.codehosts.several_repos:CODE_PLACES",
        ),
        "githubGetFileContent": Binding(
            FileContentQuery, FileContentResult, "octo.codehosts.file_content:get_file_content", 3
        ),
        "githubViewRepoStructure": Binding(
            RepoStructureQuery,
            RepoStructureResult,
            "octo.codehosts.repo_structure:view_repo_structure",
            3,
        ),
        "githubSearchRepositories": Binding(
            SearchRepositoriesQuery,
            SearchRepositoriesResult,
            "octo.codehosts.repositories:search_repositories",
            3,
        ),
        "githubSearchPullRequests": Binding(
            SearchPullRequestsQuery,
            SearchPullRequestsResult,
            "octo.codehosts.pull_requests:search_pull_requests",
            3,
            places="octo.codehosts.several_repos:PULL_REQUEST_PLACES",
        ),
    },
)
