"""The five code-host tools (GitHub, and GitLab with provider=\"gitlab\"), defined once."""

from __future__ import annotations

from octo.codehosts.models import (
    FileContentQuery,
    FileContentResult,
    RepoStructureQuery,
    RepoStructureResult,
    SearchCodeQuery,
    SearchCodeResult,
    SearchPullRequestsQuery,
    SearchPullRequestsResult,
    SearchRepositoriesQuery,
    SearchRepositoriesResult,
)
from octo.contract import ToolCategory, ToolSpec, lazy

_CONTEXT = {
    "mainResearchGoal": "Understand how React schedules state updates",
    "researchGoal": "Find the useState implementation",
    "reasoning": "The hook's source shows the update queue",
}
TOOLS: list[ToolSpec] = [
    ToolSpec(
        name="githubSearchCode",
        title="Search code on GitHub",
        category=ToolCategory.GITHUB,
        description=(
            "Search code in GitHub repositories (default branches) by 1-5 keywords, all of"
            " which must match, narrowed by owner/repo, extension, filename, path (a"
            " directory prefix) and match (file content or path). Answers paths, URLs and"
            " text-match fragments (no line numbers: read a hit with githubGetFileContent"
            " and matchString). Regex, symbol: and globs are rewritten and explained in a"
            " hint. Needs a token (GITHUB_TOKEN, GH_TOKEN or gh auth login). Cached 1 h."
        ),
        query_model=SearchCodeQuery,
        result_model=SearchCodeResult,
        handler=lazy("octo.codehosts.search_code:search_code"),
        max_queries=3,
        example={
            **_CONTEXT,
            "owner": "facebook",
            "repo": "react",
            "keywordsToSearch": ["useState"],
            "extension": "js",
            "limit": 10,
        },
    ),
    ToolSpec(
        name="githubGetFileContent",
        title="Read a file from GitHub",
        category=ToolCategory.GITHUB,
        description=(
            "Read a file of a GitHub repository (branch, tag or SHA; default branch when"
            " omitted): the whole file (fullContent), a line range (startLine+endLine), or"
            " the lines around each matchString occurrence (matchStringContextLines)"
            " (these three are mutually exclusive), paged with charOffset/charLength."
            " Files over 300 KB need paging or a range. Secrets are redacted; answers fit"
            " the token budget. Cached 1 h."
        ),
        query_model=FileContentQuery,
        result_model=FileContentResult,
        handler=lazy("octo.codehosts.file_content:get_file_content"),
        max_queries=3,
        example={
            **_CONTEXT,
            "owner": "facebook",
            "repo": "react",
            "path": "packages/react/src/ReactHooks.js",
            "matchString": "export function useState",
            "matchStringContextLines": 10,
        },
    ),
    ToolSpec(
        name="githubViewRepoStructure",
        title="View a GitHub repository's structure",
        category=ToolCategory.GITHUB,
        description=(
            "List the files and folders of a GitHub repository at a branch, under path,"
            " depth 1-2, entriesPerPage per page, with a summary (files, folders, and"
            " whether GitHub truncated the tree). Cached 1 h."
        ),
        query_model=RepoStructureQuery,
        result_model=RepoStructureResult,
        handler=lazy("octo.codehosts.repo_structure:view_repo_structure"),
        max_queries=3,
        example={
            **_CONTEXT,
            "owner": "facebook",
            "repo": "react",
            "branch": "main",
            "path": "packages",
            "depth": 1,
        },
    ),
    ToolSpec(
        name="githubSearchRepositories",
        title="Search GitHub repositories",
        category=ToolCategory.GITHUB,
        description=(
            "Search GitHub repositories by keywords and/or topics, narrowed by owner, stars,"
            " size, created and updated (last push) ranges, where keywords match (name,"
            " description, readme), sorted by stars, forks, updated or best match. Answers"
            " name, description, stars, forks, language, topics, default branch and URL."
            " Works without a token. Cached 2 h."
        ),
        query_model=SearchRepositoriesQuery,
        result_model=SearchRepositoriesResult,
        handler=lazy("octo.codehosts.repositories:search_repositories"),
        max_queries=3,
        example={
            **_CONTEXT,
            "topicsToSearch": ["typescript", "cli"],
            "stars": ">1000",
            "sort": "stars",
            "limit": 10,
        },
    ),
    ToolSpec(
        name="githubSearchPullRequests",
        title="Search GitHub pull requests",
        category=ToolCategory.GITHUB,
        description=(
            "Find GitHub pull requests by number (owner, repo, prNumber) or by free text,"
            " state, merged, draft, author, assignee, labels, created and updated ranges."
            " type metadata answers the basics; fullContent adds each changed file with its"
            " diff (per file, capped to the token budget); partialContent only the files in"
            " partialContentMetadata. withComments and withCommits add those. Cached 30 min."
        ),
        query_model=SearchPullRequestsQuery,
        result_model=SearchPullRequestsResult,
        handler=lazy("octo.codehosts.pull_requests:search_pull_requests"),
        max_queries=3,
        example={
            **_CONTEXT,
            "owner": "facebook",
            "repo": "react",
            "query": "useState",
            "state": "closed",
            "merged": True,
            "limit": 5,
        },
    ),
]
