"""The code-host tools (GitHub; GitLab with provider "gitlab"); words in tools.toml."""

from __future__ import annotations

from octo.codehosts.clone.models import CloneRepoQuery
from octo.codehosts.clone.models import CloneRepoResult
from octo.codehosts.models.ci import GetJobLogQuery
from octo.codehosts.models.ci import GetJobLogResult
from octo.codehosts.models.ci import SearchWorkflowRunsQuery
from octo.codehosts.models.ci import SearchWorkflowRunsResult
from octo.codehosts.models.code import FileContentQuery
from octo.codehosts.models.code import FileContentResult
from octo.codehosts.models.code import RepoStructureQuery
from octo.codehosts.models.code import RepoStructureResult
from octo.codehosts.models.code import SearchCodeQuery
from octo.codehosts.models.code import SearchCodeResult
from octo.codehosts.models.code import SearchRepositoriesQuery
from octo.codehosts.models.code import SearchRepositoriesResult
from octo.codehosts.models.history import CommitDetailResult
from octo.codehosts.models.history import GetCommitQuery
from octo.codehosts.models.history import SearchCommitsQuery
from octo.codehosts.models.history import SearchCommitsResult
from octo.codehosts.models.history import SearchIssuesQuery
from octo.codehosts.models.history import SearchIssuesResult
from octo.codehosts.models.history import SearchPullRequestsQuery
from octo.codehosts.models.history import SearchPullRequestsResult
from octo.codehosts.models.lines import FileBlameQuery
from octo.codehosts.models.lines import FileBlameResult
from octo.codehosts.models.lines import TraceLineQuery
from octo.codehosts.models.lines import TraceLineResult
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
            "octo.codehosts.code.search_code:search_code",
            3,
            places="octo.codehosts.code.several_repos:CODE_PLACES",
        ),
        "githubGetFileContent": Binding(
            FileContentQuery,
            FileContentResult,
            "octo.codehosts.code.file_content:get_file_content",
            3,
        ),
        "githubViewRepoStructure": Binding(
            RepoStructureQuery,
            RepoStructureResult,
            "octo.codehosts.code.repo_structure:view_repo_structure",
            3,
        ),
        "githubSearchRepositories": Binding(
            SearchRepositoriesQuery,
            SearchRepositoriesResult,
            "octo.codehosts.code.repositories:search_repositories",
            3,
        ),
        "githubSearchPullRequests": Binding(
            SearchPullRequestsQuery,
            SearchPullRequestsResult,
            "octo.codehosts.history.pull_requests:search_pull_requests",
            3,
            places="octo.codehosts.code.several_repos:PULL_REQUEST_PLACES",
        ),
        "githubSearchIssues": Binding(
            SearchIssuesQuery, SearchIssuesResult, "octo.codehosts.history.issues:search_issues", 3
        ),
        "githubSearchCommits": Binding(
            SearchCommitsQuery,
            SearchCommitsResult,
            "octo.codehosts.history.commits:search_commits",
            3,
        ),
        "githubGetCommit": Binding(
            GetCommitQuery, CommitDetailResult, "octo.codehosts.history.commit_detail:get_commit", 3
        ),
        "githubGetFileBlame": Binding(
            FileBlameQuery, FileBlameResult, "octo.codehosts.history.file_blame:get_file_blame", 3
        ),
        "traceLine": Binding(
            TraceLineQuery, TraceLineResult, "octo.codehosts.history.trace_line:trace_line", 3
        ),
        "githubSearchWorkflowRuns": Binding(
            SearchWorkflowRunsQuery,
            SearchWorkflowRunsResult,
            "octo.codehosts.ci.runs:search_workflow_runs",
            3,
        ),
        # A log may be gigabytes streamed through: more time than a search.
        "githubGetJobLog": Binding(
            GetJobLogQuery,
            GetJobLogResult,
            "octo.codehosts.ci.job_log:get_job_log",
            3,
            timeout=120.0,
        ),
        # A clone may download and unpack hundreds of megabytes: more time than a search.
        "githubCloneRepo": Binding(
            CloneRepoQuery,
            CloneRepoResult,
            "octo.codehosts.clone.clone_repo:clone_repo",
            3,
            timeout=300.0,
            read_only=False,
        ),
    },
)
