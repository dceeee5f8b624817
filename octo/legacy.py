"""Temporary bridge while the tool families move onto the contract: old-style handlers
``(run, query) -> result`` that add hints to ``run`` are wrapped into the contract's
``(ctx, query) -> Answer`` shape. Deleted once every family returns Answers itself."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, Generic, TypeVar

from octo.contract import Answer, Handler, QueryContext, Runtime
from octo.contract.runtime import B
from octo.core.envelope import ToolResult
from octo.core.paths import PathPolicy

ResultT = TypeVar("ResultT", bound=ToolResult)


@dataclass
class QueryRun:
    """The old handler context: runtime, path policy, and a place for hints."""

    ctx: QueryContext
    hints: list[str] = field(default_factory=list)
    cached: bool = False

    @property
    def runtime(self) -> Runtime:
        return self.ctx.runtime

    @property
    def paths(self) -> PathPolicy:
        return self.ctx.paths

    def provider(self, cls: type[B]) -> B:
        return self.ctx.backend(cls)

    def hint(self, text: str) -> None:
        if text not in self.hints:
            self.hints.append(text)


@dataclass
class HostAnswer(Generic[ResultT]):
    """A remote host's answer to one query (code host or package registry)."""

    result: ResultT
    hints: list[str] = field(default_factory=list)
    #: True when every request behind the answer was served from the cache.
    cached: bool = False

    def deliver(self, run: QueryRun) -> ResultT:
        """Hand the hints and the cached flag to ``run``, and return the result."""
        for text in self.hints:
            run.hint(text)
        run.cached = self.cached
        return self.result


OldHandler = Callable[[QueryRun, Any], Awaitable[ToolResult]]


def legacy(target: str) -> Handler:
    """An old-style handler ``"module:function"`` in the contract's shape, loaded lazily."""
    module_name, _, function = target.partition(":")

    async def handler(ctx: QueryContext, query: Any) -> Answer[Any]:
        old: OldHandler = getattr(import_module(module_name), function)
        run = QueryRun(ctx)
        result = await old(run, query)
        return Answer(result, run.hints, run.cached)

    return handler


# The old handlers, one per tool; each family's specs name them until the family moves.


def _host(run: QueryRun, query: Any) -> Any:
    from octo.providers.github import GitHubProvider
    from octo.providers.gitlab import GitLabProvider, gitlab_is_default

    name = query.provider
    if "provider" not in query.model_fields_set and gitlab_is_default(run.runtime.config.env):
        name = "gitlab"
    if name == "gitlab":
        return run.provider(GitLabProvider)
    return run.provider(GitHubProvider)


async def github_search_code(run: QueryRun, query: Any) -> Any:
    return (await _host(run, query).search_code(query)).deliver(run)


async def github_get_file_content(run: QueryRun, query: Any) -> Any:
    return (await _host(run, query).get_file_content(query)).deliver(run)


async def github_view_repo_structure(run: QueryRun, query: Any) -> Any:
    return (await _host(run, query).view_repo_structure(query)).deliver(run)


async def github_search_repositories(run: QueryRun, query: Any) -> Any:
    return (await _host(run, query).search_repositories(query)).deliver(run)


async def github_search_pull_requests(run: QueryRun, query: Any) -> Any:
    return (await _host(run, query).search_pull_requests(query)).deliver(run)


async def package_search(run: QueryRun, query: Any) -> Any:
    from octo.providers.registries import PackageRegistries

    return (await run.provider(PackageRegistries).search(query)).deliver(run)


async def local_search_code(run: QueryRun, query: Any) -> Any:
    from octo.providers.local import LocalSearchProvider

    return await run.provider(LocalSearchProvider).search_code(run, query)


async def local_get_file_content(run: QueryRun, query: Any) -> Any:
    from octo.providers.local import LocalSearchProvider

    return await run.provider(LocalSearchProvider).get_file_content(run, query)


async def local_view_structure(run: QueryRun, query: Any) -> Any:
    from octo.providers.local_files import LocalFilesProvider

    return await run.provider(LocalFilesProvider).view_structure(run, query)


async def local_find_files(run: QueryRun, query: Any) -> Any:
    from octo.providers.local_files import LocalFilesProvider

    return await run.provider(LocalFilesProvider).find_files(run, query)
