"""The queries in GitLab's terms: request parameters, GitHub-style ranges, and the filters
GitLab lacks, applied here. Each parameter GitLab cannot honour is noted for the answer."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from octo.codehosts.hosts.gitlab.policy import namespace_id
from octo.codehosts.hosts.gitlab.policy import project_id
from octo.codehosts.models.code import SearchCodeQuery
from octo.codehosts.models.code import SearchRepositoriesQuery
from octo.codehosts.models.history import SearchIssuesQuery
from octo.codehosts.models.history import SearchPullRequestsQuery
from octo.codehosts.shapes.code import TreeRow
from octo.core.errors import InvalidQueryError

_RANGE = re.compile(r"^\s*(>=|<=|>|<)?\s*([^.<>=\s][^<>=]*?)\s*(?:\.\.\s*(\S+))?\s*$")


def scope_path(owner: str | None, repo: str | None, listing: str) -> str:
    """``listing`` ("search", "merge_requests", "issues") of a project, a group or the
    whole instance."""
    if owner and repo:
        return f"/projects/{project_id(owner, repo)}/{listing}"
    if owner:
        return f"/groups/{namespace_id(owner)}/{listing}"
    return f"/{listing}"


def _bounds(expression: str) -> tuple[str | None, str | None]:
    """``(low, high)`` of a GitHub-style range: ">x", ">=x", "<x", "x..y" or "x"."""
    match = _RANGE.match(expression)
    if match is None:
        raise InvalidQueryError(
            f"'{expression}' is not a range",
            hints=['Use ">VALUE", "<VALUE" or "LOW..HIGH", e.g. ">2024-01-01".'],
        )
    operator, first, second = match.groups()
    if second is not None:
        return first, second
    if operator in (">", ">="):
        return first, None
    if operator in ("<", "<="):
        return None, first
    return first, first


def in_range(value: int | str | None, expression: str, convert: Callable[[str], Any]) -> bool:
    """True when ``value`` lies in the GitHub-style range ``expression``."""
    if value is None:
        return False
    low, high = _bounds(expression)
    try:
        return (low is None or value >= convert(low)) and (high is None or value <= convert(high))
    except ValueError:
        raise InvalidQueryError(f"'{expression}' is not a valid range for this field") from None


def date_params(expression: str | None, field: str) -> dict[str, str]:
    """``{field}_after`` / ``{field}_before`` parameters of a date range."""
    if not expression:
        return {}
    low, high = _bounds(expression)
    params = {}
    if low:
        params[f"{field}_after"] = low
    if high:
        params[f"{field}_before"] = high if "T" in high else f"{high}T23:59:59Z"
    return params


def path_filter(query: SearchCodeQuery) -> Callable[[str], bool] | None:
    """The extension / filename / path filters, applied by us: basic search has none."""
    extension, filename, prefix = query.filters()
    if not (extension or filename or prefix):
        return None

    def keep(path: str) -> bool:
        name = path.rsplit("/", 1)[-1]
        return (
            (not extension or name.endswith(f".{extension}"))
            and (not filename or name == filename)
            and (not prefix or path == prefix or path.startswith(f"{prefix}/"))
        )

    return keep


def matching_paths(rows: list[TreeRow], query: SearchCodeQuery) -> list[str]:
    """The files of a tree whose paths hold every keyword and pass the query's filters."""
    needles = [k.strip().lower() for k in query.keywordsToSearch]
    keep = path_filter(query)
    return [
        path
        for path, kind, *_ in rows
        if kind == "file"
        and all(n in path.lower() for n in needles)
        and (keep is None or keep(path))
    ]


def project_params(query: SearchRepositoriesQuery) -> tuple[dict[str, Any], list[str]]:
    """Parameters of a project listing, and notes on what GitLab cannot do of the query."""
    notes: list[str] = []
    params: dict[str, Any] = {"per_page": query.limit, "page": query.page}
    if query.keywordsToSearch:
        params["search"] = " ".join(query.keywordsToSearch)
    if query.topicsToSearch:
        params["topic"] = ",".join(query.topicsToSearch)
    order = {"stars": "star_count", "updated": "last_activity_at"}.get(query.sort or "")
    if query.sort == "forks":
        notes.append("GitLab cannot order projects by forks: ordered by stars instead.")
        order = "star_count"
    if order is None:
        order = "similarity" if query.keywordsToSearch else "star_count"
    params.update(order_by=order, sort="desc")
    params.update(date_params(query.updated, "last_activity"))
    if query.size:
        notes.append("GitLab cannot filter projects by size: size was not applied.")
    if query.match and set(query.match) != {"name", "description"}:
        notes.append("GitLab searches project names, paths and descriptions, never READMEs.")
    return params, notes


def merge_request_params(query: SearchPullRequestsQuery) -> tuple[dict[str, Any], list[str]]:
    """Parameters of a merge-request listing, and notes on how GitLab reads the query."""
    notes: list[str] = []
    params: dict[str, Any] = {"per_page": query.limit, "page": query.page}
    if query.merged:
        params["state"] = "merged"
        if query.state == "open":
            notes.append("merged=true with state=open matches nothing: listed merged ones.")
    elif query.state == "open":
        params["state"] = "opened"
    elif query.state == "closed":
        params["state"] = "closed"
        if query.merged is None:
            notes.append(
                "GitLab keeps merged apart from closed: these are closed without merging; "
                "merged=true lists the merged ones."
            )
    else:
        params["state"] = "all"
    if query.merged is False and query.state is None:
        notes.append("merged=false on GitLab lists open and closed-unmerged requests.")
    if query.author:
        params["author_username"] = query.author
    if query.assignee:
        params["assignee_username"] = query.assignee
    labels = [query.label] if isinstance(query.label, str) else query.label or []
    if labels:
        params["labels"] = ",".join(labels)
    if query.query:
        params["search"] = query.query
    if query.draft is not None:
        params["wip"] = "yes" if query.draft else "no"
    params.update(date_params(query.created, "created"))
    params.update(date_params(query.updated, "updated"))
    if not (query.owner or query.repo):
        params["scope"] = "all"
    return params, notes


def issue_params(query: SearchIssuesQuery) -> tuple[dict[str, Any], list[str]]:
    """Parameters of an issue listing, and notes on what GitLab reads differently."""
    notes: list[str] = []
    params: dict[str, Any] = {
        "per_page": query.limit,
        "page": query.page,
        "state": {"open": "opened", "closed": "closed"}.get(query.state or "", "all"),
        "order_by": {"comments": "updated_at"}.get(query.sort or "", query.sort or "created_at"),
        "sort": query.order,
    }
    if query.sort == "comments":
        notes.append("GitLab cannot order issues by comments: ordered by last update instead.")
    if query.query:
        params["search"] = query.query
    if query.labels:
        params["labels"] = ",".join(query.labels)
    if query.author:
        params["author_username"] = query.author
    if query.assignee:
        params["assignee_username"] = query.assignee
    if query.mentions:
        notes.append("GitLab cannot filter issues by mentions: mentions was not applied.")
    params.update(date_params(query.created, "created"))
    params.update(date_params(query.updated, "updated"))
    if not query.owner:
        params["scope"] = "all"
    return params, notes
