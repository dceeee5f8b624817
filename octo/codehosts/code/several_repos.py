"""githubSearchCode and githubSearchPullRequests over several repositories (``repos``).

GitHub's search syntax takes several ``repo:`` qualifiers: a global answer is one request,
ranked by GitHub. When that request fails on a repository (one that does not exist, or that
the token cannot see), each repository is asked on its own so the failure stays with it.
perPlace answers, and every GitLab answer (GitLab has no search across chosen projects), ask
each repository on its own: the host's rate-limit rules and concurrency limits apply to each
request as to any other.
"""

from __future__ import annotations

from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Sequence
from datetime import datetime
from typing import Any
from typing import TypeVar

from octo.codehosts.code import search_code as code
from octo.codehosts.history import pull_requests
from octo.codehosts.hosts.host import CodeHost
from octo.codehosts.hosts.routing import call
from octo.codehosts.hosts.routing import choose_host
from octo.codehosts.hosts.routing import host_of
from octo.codehosts.models.code import CodeSearchHit
from octo.codehosts.models.code import SearchCodeQuery
from octo.codehosts.models.code import SearchCodeResult
from octo.codehosts.models.code import SearchPagination
from octo.codehosts.models.history import PullRequest
from octo.codehosts.models.history import SearchPullRequestsQuery
from octo.codehosts.models.history import SearchPullRequestsResult
from octo.codehosts.models.repo_names import is_wildcard
from octo.contract import Answer
from octo.contract import QueryContext
from octo.contract.place_answers import Paging
from octo.contract.place_answers import Places
from octo.contract.place_answers import PlaceTool
from octo.contract.place_answers import SeveralPlaces
from octo.contract.place_answers import items_field_of
from octo.contract.places import Outcome
from octo.contract.places import Place
from octo.contract.places import fit_items
from octo.contract.places import labelled
from octo.contract.places import mark_places
from octo.core.errors import InvalidQueryError
from octo.core.errors import NotFoundError
from octo.core.errors import OctoError

Q = TypeVar("Q", SearchCodeQuery, SearchPullRequestsQuery)
R = TypeVar("R", SearchCodeResult, SearchPullRequestsResult)
Single = Callable[[QueryContext, Q], Awaitable[Answer[R]]]

#: The most results a search API answers in one page.
_API_PAGE = 100
#: The most repositories one query's ``repos`` wildcards expand to (with the names given).
MAX_EXPANDED = 20


def _repository(place: Place) -> dict[str, Any]:
    owner, _, repo = place.target.rpartition("/")
    return {"owner": owner, "repo": repo, "repos": None}


def _totals(results: Sequence[SearchCodeResult | SearchPullRequestsResult], paging: Paging) -> Any:
    """What the answer of several repositories sums up: the total and where its page sits."""
    pagination = SearchPagination(currentPage=paging.currentPage, hasMore=paging.hasMore)
    return {"totalCount": sum(r.totalCount for r in results), "pagination": pagination}


def _code_combine(
    _root: str, hits: list[Any], results: list[SearchCodeResult], paging: Paging
) -> SearchCodeResult:
    incomplete = True if any(r.incompleteResults for r in results) else None
    return SearchCodeResult(results=hits, incompleteResults=incomplete, **_totals(results, paging))


def _pulls_combine(
    _root: str, pulls: list[Any], results: list[SearchPullRequestsResult], paging: Paging
) -> SearchPullRequestsResult:
    return SearchPullRequestsResult(pullRequests=pulls, **_totals(results, paging))


def _newest_first(pull: PullRequest, _position: int) -> float:
    return -datetime.fromisoformat(pull.created_at.replace("Z", "+00:00")).timestamp()


def _alone(single: Single[Q, R]) -> Single[Q, R]:
    """``single`` asked for one repository of several: a failure names the repository."""

    async def ask(ctx: QueryContext, query: Q) -> Answer[R]:
        try:
            return await single(ctx, query)
        except (InvalidQueryError, NotFoundError) as exc:
            where = call(
                choose_host(ctx, query),
                "githubViewRepoStructure",
                owner=query.owner or "",
                repo=query.repo or "",
                branch="HEAD",
            )
            raise exc.with_hints(
                f"Check that {query.owner}/{query.repo} exists and can be read: {where}."
            ) from None

    return ask


def _total(result: SearchCodeResult | SearchPullRequestsResult, _window: int) -> int:
    return result.totalCount


def _interleaved(_hit: CodeSearchHit, position: int) -> int:
    # Scores of separate searches do not compare: the top hit of each, then the second...
    return position


def _repositories_tool(
    *, name: str, single: Single[Q, R], rank: Callable[[Any, int], Any], combine: Any
) -> PlaceTool[Q, R]:
    """A search over repositories (paged by the fields its result model declares: page and
    limit), one API page at most a place."""
    return PlaceTool(
        name=name,
        single=_alone(single),
        place_fields=_repository,
        count=_total,
        combine=combine,
        rank=rank,
        max_window=_API_PAGE,
        local=False,
    )


CODE = _repositories_tool(
    name="githubSearchCode", single=code.search_code, rank=_interleaved, combine=_code_combine
)
PULLS = _repositories_tool(
    name="githubSearchPullRequests",
    single=pull_requests.search_pull_requests,
    rank=_newest_first,
    combine=_pulls_combine,
)


async def _repositories_named(ctx: QueryContext, query: Q) -> Places | None:
    """The repositories of ``repos``, wildcards expanded; None for a search of one
    repository."""
    if not query.repos:
        return None
    if not any(is_wildcard(name) for name in query.repos):
        return Places([Place(label=name, target=name) for name in query.repos])
    names: dict[str, str] = {}  # by lower-case name, so none is searched twice
    failed: dict[str, OctoError] = {}
    notes: list[str] = []
    for name in query.repos:
        if not is_wildcard(name):
            names.setdefault(name.lower(), name)
            continue
        try:
            matched, cut, reply_notes = await _matching(host_of(ctx, query, name), name)
        except OctoError as exc:
            failed[name] = exc
            names.setdefault(name.lower(), name)
            continue
        notes.extend(reply_notes)
        room = max(0, MAX_EXPANDED - len(names))
        taken = [found for found in matched if found.lower() not in names][:room]
        names.update((found.lower(), found) for found in taken)
        notes.append(_matched_note(name, matched, len(taken), cut))
    places = [Place(label=name, target=name) for name in names.values()]
    return Places(places, failed=failed, notes=notes)


async def _matching(host: CodeHost, wildcard: str) -> tuple[list[str], bool, list[str]]:
    """The repositories ``wildcard`` matches, by name; whether the owner's list was cut
    before its end; the host's notes. NotFoundError when none matches."""
    owner, _, pattern = wildcard.rpartition("/")
    prefix = pattern.removesuffix("*").lower()
    reply = await host.owner_repositories(owner)
    listed = reply.value.items
    matched = sorted(
        name
        for name in listed
        if name.rpartition("/")[0].lower() == owner.lower()
        and name.rpartition("/")[2].lower().startswith(prefix)
    )
    cut = reply.value.next is not None
    if not matched:
        some = ", ".join(sorted(listed)[:5]) or "none"
        raise NotFoundError(
            f"{wildcard} matches none of the {len(listed)} repositories of {owner} read "
            f"(some: {some})",
            hints=[f"Check the owner and the prefix{host.owner_note}."],
        )
    return matched, cut, list(reply.notes)


def _matched_note(wildcard: str, matched: list[str], taken: int, cut: bool) -> str:
    """What the answer says of a wildcard: how many it matched, how many are searched."""
    count = f"at least {len(matched)}" if cut else str(len(matched))
    note = f"{wildcard} matched {count} repositories"
    if taken == len(matched) and not cut:
        return f"{note}; all are searched."
    return (
        f"{note}; {taken} are searched (at most {MAX_EXPANDED} in one query, by name): "
        "narrow it (owner/prefix-*) or name the repositories in repos."
    )


def _at_once(
    single: Single[Q, R],
) -> Callable[[QueryContext, Q, Places, PlaceTool[Q, R]], Awaitable[Answer[R] | None]]:
    """A global search of several GitHub repositories as one request; None otherwise."""

    async def ask(
        ctx: QueryContext, query: Q, places: Places, tool: PlaceTool[Q, R]
    ) -> Answer[R] | None:
        host = choose_host(ctx, query)
        if host.provider != "github" or query.aggregationMode != "global":
            return None
        if any(host_of(ctx, query, place.target) is not host for place in places.places):
            return None  # repositories of several hosts (a hosts file): each asked alone
        if places.failed:
            return None  # a wildcard that matched nothing: its error stays with it
        # Wildcards expanded: the one request names every repository they matched.
        query = query.model_copy(update={"repos": [place.target for place in places.places]})
        try:
            answer = await single(ctx, query)
        except (InvalidQueryError, NotFoundError):
            return None  # a repository GitHub cannot search sank the request: ask each alone
        return await _one_request(ctx, query, places, answer)

    return ask


async def _one_request(ctx: QueryContext, query: Q, places: Places, answer: Answer[R]) -> Answer[R]:
    """The answer of one search of several repositories, labelled (flat) or grouped by
    repository."""
    result = answer.result
    items: list[Any] = list(getattr(result, items_field_of(result)))
    by_name = {place.label.lower(): place for place in places.places}

    def place_of(item: CodeSearchHit | PullRequest) -> Place:
        named = by_name.get(item.repository.lower())
        return named or Place(label=item.repository, target=item.repository)

    fitted = await fit_items(ctx, query, items, None, local=False)
    update: dict[str, Any] = {}
    if query.responseFormat == "grouped":
        update[items_field_of(result)] = []
        update["groups"] = [
            result.model_copy(
                update={
                    items_field_of(result): [i for i in fitted.items if place_of(i) is place],
                    "totalCount": sum(1 for i in fitted.items if place_of(i) is place),
                    "place": place.label,
                    "tokens": None,
                }
            )
            for place in places.places
        ]
    else:
        update[items_field_of(result)] = [
            labelled([item], place_of(item).label)[0] for item in fitted.items
        ]
    outcomes: list[Outcome[R]] = [Outcome(place, answer) for place in places.places]
    marked = mark_places(result.model_copy(update=update), places.places, outcomes, not items)
    combined = Answer(marked, answer.hints, answer.cached, answer.partial)
    if query.responseFormat == "grouped":
        combined.hint(
            "Groups split GitHub's one ranked page; each repository's own total needs "
            'aggregationMode "perPlace" (one request per repository).'
        )
    return combined


#: What the two search tools' bindings name as their places (their handlers search one
#: repository).
CODE_PLACES = SeveralPlaces(_repositories_named, lambda _query: CODE, _at_once(code.search_code))
PULL_REQUEST_PLACES = SeveralPlaces(
    _repositories_named,
    lambda _query: PULLS,
    _at_once(pull_requests.search_pull_requests),
)
