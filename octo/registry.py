"""The one list of tools. MCP schemas, library methods, the CLI and docs/tools.md derive from it."""

from __future__ import annotations

import difflib
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from octo.envelope import BulkResponse, ToolQuery, ToolResult
from octo.errors import CallError

if TYPE_CHECKING:
    from octo.dispatch import QueryRun


class ToolCategory(StrEnum):
    LOCAL = "local"
    GITHUB = "github"
    PACKAGE = "package"
    LSP = "lsp"


Handler = Callable[["QueryRun", Any], Awaitable[ToolResult]]


@dataclass(frozen=True)
class ToolSpec:
    """Everything about one tool, defined once."""

    name: str
    title: str
    category: ToolCategory
    description: str
    query_model: type[ToolQuery]
    result_model: type[ToolResult]
    handler: Handler
    max_queries: int
    example: dict[str, Any] = field(default_factory=dict)
    timeout: float | None = None

    @property
    def python_name(self) -> str:
        """snake_case name of the library method: localSearchCode -> local_search_code."""
        return re.sub(r"(?<!^)(?=[A-Z])", "_", self.name).lower()

    @property
    def open_world(self) -> bool:
        """True for tools that reach remote services."""
        return self.category in (ToolCategory.GITHUB, ToolCategory.PACKAGE)

    @property
    def bulk_model(self) -> type[BaseModel]:
        return BulkResponse[self.result_model]  # type: ignore[name-defined]

    def input_schema(self) -> dict[str, Any]:
        """JSON schema of a call's arguments: ``{"queries": [query, ...]}``."""
        query_schema = self.query_model.model_json_schema()
        defs = query_schema.pop("$defs", {})
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {
                "queries": {
                    "type": "array",
                    "items": query_schema,
                    "minItems": 1,
                    "maxItems": self.max_queries,
                    "description": f"1-{self.max_queries} queries, run concurrently.",
                }
            },
            "required": ["queries"],
        }
        if defs:
            schema["$defs"] = defs
        compact: dict[str, Any] = _compact_schema(schema, drop=("title",))
        return compact

    def output_schema(self) -> dict[str, Any]:
        """JSON schema of the bulk response; field prose lives in the input schema and docs."""
        schema = self.bulk_model.model_json_schema()
        compact: dict[str, Any] = _compact_schema(schema, drop=("title", "description"))
        return compact


def _compact_schema(node: Any, drop: tuple[str, ...]) -> Any:
    """``node`` without the annotation keywords in ``drop`` and without ``"default": null``.

    tools/list goes into every model's context: pydantic's per-field titles and
    null defaults cost tokens and say nothing. Only string-valued keywords are
    dropped, so a property that happens to be called "title" survives.
    """
    if isinstance(node, list):
        return [_compact_schema(item, drop) for item in node]
    if not isinstance(node, dict):
        return node
    return {
        key: _compact_schema(value, drop)
        for key, value in node.items()
        if not (key in drop and isinstance(value, str)) and not (key == "default" and value is None)
    }


# One function per tool family builds its specs; imports stay inside so that
# `import octo` and `octo tools` load only what they touch.


def _github_tools() -> list[ToolSpec]:
    from octo.tools.github import (
        CodeHost,
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

    RemoteQuery = (
        SearchCodeQuery
        | FileContentQuery
        | RepoStructureQuery
        | SearchRepositoriesQuery
        | SearchPullRequestsQuery
    )

    def host(run: QueryRun, query: RemoteQuery) -> CodeHost:
        # The providers (httpx, tenacity) load on the first call, not with the registry.
        from octo.providers.github import GitHubProvider
        from octo.providers.gitlab import GitLabProvider, gitlab_is_default

        name = query.provider
        if "provider" not in query.model_fields_set and gitlab_is_default(run.runtime.config.env):
            name = "gitlab"
        if name == "gitlab":
            return run.provider(GitLabProvider)
        return run.provider(GitHubProvider)

    async def search_code(run: QueryRun, query: SearchCodeQuery) -> SearchCodeResult:
        return (await host(run, query).search_code(query)).deliver(run)

    async def get_file(run: QueryRun, query: FileContentQuery) -> FileContentResult:
        return (await host(run, query).get_file_content(query)).deliver(run)

    async def view_structure(run: QueryRun, query: RepoStructureQuery) -> RepoStructureResult:
        return (await host(run, query).view_repo_structure(query)).deliver(run)

    async def search_repos(
        run: QueryRun, query: SearchRepositoriesQuery
    ) -> SearchRepositoriesResult:
        return (await host(run, query).search_repositories(query)).deliver(run)

    async def search_pulls(
        run: QueryRun, query: SearchPullRequestsQuery
    ) -> SearchPullRequestsResult:
        return (await host(run, query).search_pull_requests(query)).deliver(run)

    context = {
        "mainResearchGoal": "Understand how React schedules state updates",
        "researchGoal": "Find the useState implementation",
        "reasoning": "The hook's source shows the update queue",
    }
    return [
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
            handler=search_code,
            max_queries=3,
            example={
                **context,
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
            handler=get_file,
            max_queries=3,
            example={
                **context,
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
            handler=view_structure,
            max_queries=3,
            example={
                **context,
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
            handler=search_repos,
            max_queries=3,
            example={
                **context,
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
            handler=search_pulls,
            max_queries=3,
            example={
                **context,
                "owner": "facebook",
                "repo": "react",
                "query": "useState",
                "state": "closed",
                "merged": True,
                "limit": 5,
            },
        ),
    ]


def _package_tools() -> list[ToolSpec]:
    from octo.tools.packages import PackageSearchQuery, PackageSearchResult

    async def package_search(run: QueryRun, query: PackageSearchQuery) -> PackageSearchResult:
        # The provider (httpx, tenacity) loads on the first call, not with the registry.
        from octo.providers.registries import PackageRegistries

        return (await run.provider(PackageRegistries).search(query)).deliver(run)

    return [
        ToolSpec(
            name="packageSearch",
            title="Search npm and Python packages",
            category=ToolCategory.PACKAGE,
            description=(
                "Look up packages on the npm registry or the Python index the user configured"
                " (OCTO_NPM_REGISTRY / .npmrc / npm; OCTO_PYPI_INDEX / PIP_INDEX_URL / pip.conf /"
                " pip): name, latest version, description, source repository {url, owner, repo,"
                " directory} normalised from every form registries use, homepage, author,"
                " license, deprecation. npmFetchMetadata / pythonFetchMetadata add versions with"
                " dates. searchLimit above 1 also lists similar names where the registry can"
                " search. A missing package is NOT_FOUND with close names when known. Cached 4 h."
            ),
            query_model=PackageSearchQuery,
            result_model=PackageSearchResult,
            handler=package_search,
            max_queries=3,
            example={"name": "axios", "ecosystem": "npm", "searchLimit": 1},
        )
    ]


def _local_code_tools() -> list[ToolSpec]:
    from octo.tools.local import (
        LocalGetFileContentQuery,
        LocalGetFileContentResult,
        LocalSearchCodeQuery,
        LocalSearchCodeResult,
    )

    # The provider loads on first use: listing tools needs only the models.
    async def search_code(run: QueryRun, query: LocalSearchCodeQuery) -> LocalSearchCodeResult:
        from octo.providers.local import LocalSearchProvider

        return await run.provider(LocalSearchProvider).search_code(run, query)

    async def get_file_content(
        run: QueryRun, query: LocalGetFileContentQuery
    ) -> LocalGetFileContentResult:
        from octo.providers.local import LocalSearchProvider

        return await run.provider(LocalSearchProvider).get_file_content(run, query)

    safety = (
        " Only under the allowed roots (symlinks resolved); dot-files need hidden: true and"
        " credential files (.env, keys) includeSensitive: true; secrets in returned text are"
        " redacted."
    )
    return [
        ToolSpec(
            name="localSearchCode",
            title="Search local code",
            category=ToolCategory.LOCAL,
            description=(
                "Search file contents under a local directory with ripgrep (regex or fixedString,"
                " smartCase), filtered by type and include/exclude globs, respecting .gitignore."
                " Files come in path order, filesPerPage per page (filePageNumber), each with its"
                " match count and first matchesPerPage matching lines plus contextLines around"
                " them; filesOnly lists files only. Modes: discovery (filesOnly), paginated,"
                " detailed (contextLines=3). Paths are relative to the returned root; stats count"
                " every matching file, whichever page is asked for." + safety
            ),
            query_model=LocalSearchCodeQuery,
            result_model=LocalSearchCodeResult,
            handler=search_code,
            max_queries=5,
            example={"pattern": "def load_config", "path": "src", "type": "py"},
        ),
        ToolSpec(
            name="localGetFileContent",
            title="Read a local file",
            category=ToolCategory.LOCAL,
            description=(
                "Read a local text file: by default from its start up to the token budget, cut"
                " at a line boundary, with the exact parameters to continue; or one of"
                " startLine+endLine, matchString (matching lines with matchStringContextLines"
                " around them), charOffset+charLength pages, or fullContent (up to 300 KB)."
                " Binary files are refused (INVALID_QUERY); files above OCTO_RG_MAX_FILESIZE"
                " are FILE_TOO_LARGE." + safety
            ),
            query_model=LocalGetFileContentQuery,
            result_model=LocalGetFileContentResult,
            handler=get_file_content,
            max_queries=5,
            example={"path": "src/app.py", "matchString": "def load_config"},
        ),
    ]


def _local_files_tools() -> list[ToolSpec]:
    from octo.tools.local_files import (
        FindFilesQuery,
        FindFilesResult,
        ViewStructureQuery,
        ViewStructureResult,
    )

    # The provider loads on the first call, so tools/list needs only the models.
    async def view_structure(run: QueryRun, query: ViewStructureQuery) -> ViewStructureResult:
        from octo.providers.local_files import LocalFilesProvider

        return await run.provider(LocalFilesProvider).view_structure(run, query)

    async def find_files(run: QueryRun, query: FindFilesQuery) -> FindFilesResult:
        from octo.providers.local_files import LocalFilesProvider

        return await run.provider(LocalFilesProvider).find_files(run, query)

    walk_rules = (
        " .gitignore rules are respected and hidden entries skipped unless noIgnore / hidden;"
        " symlinks are listed, never followed. Sensitive files (.env, keys) are listed with"
        " sensitive: true; reading them is gated by localGetFileContent."
    )
    return [
        ToolSpec(
            name="localViewStructure",
            title="View local directory structure",
            category=ToolCategory.LOCAL,
            description=(
                "List a local directory: entries (paths relative to it) with type and, with"
                " details, size, modified time and permissions; depth 1-5 or recursive; sorted by"
                " time (newest first), size, name or extension; filtered by files/directories,"
                " extensions or a name pattern; a summary of totals; 20 entries per page."
                " Directories show when they hold a visible file." + walk_rules
            ),
            query_model=ViewStructureQuery,
            result_model=ViewStructureResult,
            handler=view_structure,
            max_queries=5,
            example={"path": "src", "depth": 2, "sortBy": "name", "entriesPerPage": 20},
        ),
        ToolSpec(
            name="localFindFiles",
            title="Find local files",
            category=ToolCategory.LOCAL,
            description=(
                "Find files, directories or symlinks under a local directory by name globs,"
                " type, depth, modification time (modifiedWithin / modifiedBefore: 30m, 2h, 7d,"
                " 1w), size (sizeGreater / sizeLess: 500k, 10M, 1G), octal permissions or"
                " access, skipping excludeDir; most recently modified first, 20 per page, at"
                " most limit results." + walk_rules
            ),
            query_model=FindFilesQuery,
            result_model=FindFilesResult,
            handler=find_files,
            max_queries=5,
            example={"path": ".", "name": "*.py", "type": "f", "modifiedWithin": "7d"},
        ),
    ]


def _lsp_tools() -> list[ToolSpec]:
    from octo.tools.lsp import (
        CallHierarchyQuery,
        CallHierarchyResult,
        FindReferencesQuery,
        FindReferencesResult,
        GotoDefinitionQuery,
        GotoDefinitionResult,
    )

    # octo.lsp.navigate loads pygls; it is imported on the first LSP query, not by the registry.
    async def goto_definition(run: QueryRun, query: GotoDefinitionQuery) -> GotoDefinitionResult:
        from octo.lsp import navigate

        return await navigate.goto_definition(run, query)

    async def find_references(run: QueryRun, query: FindReferencesQuery) -> FindReferencesResult:
        from octo.lsp import navigate

        return await navigate.find_references(run, query)

    async def call_hierarchy(run: QueryRun, query: CallHierarchyQuery) -> CallHierarchyResult:
        from octo.lsp import navigate

        return await navigate.call_hierarchy(run, query)

    located = (
        " The symbol is found by name near lineHint (whole word, outside comments and strings;"
        " orderHint picks the nth on the line; lines +-5 are tried next) and the answer echoes"
        " where (resolved). Lines are 1-based, characters 0-based UTF-16; paths are relative to"
        " the allowed root. The language server (basedpyright, pyright, ty, tsgo,"
        " typescript-language-server, clangd, gopls, rust-analyzer...) starts on first use and"
        " stays warm; answers given while it still indexes are flagged partial."
    )
    return [
        ToolSpec(
            name="lspGotoDefinition",
            title="Go to definition (LSP)",
            category=ToolCategory.LSP,
            description="Where a symbol is defined, across files, with lines of code around it."
            + located,
            query_model=GotoDefinitionQuery,
            result_model=GotoDefinitionResult,
            handler=goto_definition,
            max_queries=5,
            example={"uri": "src/app.py", "symbolName": "load_config", "lineHint": 12},
        ),
        ToolSpec(
            name="lspFindReferences",
            title="Find references (LSP)",
            category=ToolCategory.LSP,
            description="Every use of a symbol in the workspace, with or without its declaration,"
            " paged (referencesPerPage, page), each with lines of code around it." + located,
            query_model=FindReferencesQuery,
            result_model=FindReferencesResult,
            handler=find_references,
            max_queries=5,
            example={"uri": "src/app.py", "symbolName": "load_config", "lineHint": 12},
        ),
        ToolSpec(
            name="lspCallHierarchy",
            title="Call hierarchy (LSP)",
            category=ToolCategory.LSP,
            description="Who calls a function (incoming) or what it calls (outgoing), breadth-first"
            " to depth 1-3, as from/to edges with call sites and their code, paged (callsPerPage,"
            " page)." + located,
            query_model=CallHierarchyQuery,
            result_model=CallHierarchyResult,
            handler=call_hierarchy,
            max_queries=3,
            example={
                "uri": "src/app.py",
                "symbolName": "load_config",
                "lineHint": 12,
                "direction": "incoming",
                "depth": 2,
            },
        ),
    ]


# Order here is tools/list order.
_FAMILIES: tuple[Callable[[], list[ToolSpec]], ...] = (
    _github_tools,
    _package_tools,
    _local_code_tools,
    _local_files_tools,
    _lsp_tools,
)


@cache
def all_tools() -> tuple[ToolSpec, ...]:
    """Every tool, in a fixed order."""
    return tuple(spec for family in _FAMILIES for spec in family())


def get_tool(name: str) -> ToolSpec:
    """The tool called ``name``; an unknown name is a call error naming the closest ones."""
    by_name = {spec.name: spec for spec in all_tools()}
    if name in by_name:
        return by_name[name]
    by_python = {spec.python_name: spec for spec in all_tools()}
    if name in by_python:
        return by_python[name]
    close = difflib.get_close_matches(name, list(by_name), n=3)
    raise CallError(
        f"Unknown tool '{name}'",
        hints=[f"Did you mean: {', '.join(close)}?"]
        if close
        else ["List tools with `octo tools`."],
    )
