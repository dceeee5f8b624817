"""GitHub's search syntax: the ``q`` of a code, repository or issue search built from a query.

Models write the web's new code-search syntax (regex, ``symbol:``, globs); the REST API
speaks the legacy one. What cannot be said is rewritten, and every rewrite is noted so
the answer can explain it.
"""

from __future__ import annotations

import re

from octo.codehosts.models.code import SearchCodeQuery
from octo.codehosts.models.code import SearchRepositoriesQuery
from octo.codehosts.models.history import SearchCommitsQuery
from octo.codehosts.models.history import SearchIssuesQuery
from octo.codehosts.models.history import SearchPullRequestsQuery
from octo.codehosts.shapes.history import given
from octo.core.errors import InvalidQueryError

_REGEX_KEYWORD = re.compile(r"^/(.+)/[a-z]*$")
_GLOB_EXTENSION = re.compile(r"^(?:\*\*/)?\*\.([A-Za-z0-9_+-]+)$")
_FILE_NAME = re.compile(r"^[^.*/][^/]*\.[A-Za-z0-9_+-]{1,10}$")
_BOOLEAN = re.compile(r"\b(AND|OR|NOT)\b")


def _scope(
    query: SearchCodeQuery | SearchPullRequestsQuery | SearchIssuesQuery | SearchCommitsQuery,
) -> list[str]:
    """Where a search looks: its repositories (several repo: qualifiers make one search of
    them all), or an owner's."""
    several = query.repos if isinstance(query, SearchCodeQuery | SearchPullRequestsQuery) else None
    if several:
        return [f"repo:{name}" for name in several]
    if query.owner and query.repo:
        return [f"repo:{query.owner}/{query.repo}"]
    if query.owner:
        return [f"user:{query.owner}"]
    return []


def code_search_terms(query: SearchCodeQuery) -> tuple[str, list[str]]:
    """The ``q`` of a code search, and notes on every rewrite it needed."""
    notes: list[str] = []
    terms: list[str] = []
    for raw in query.keywordsToSearch:
        keyword = raw.strip()
        regex = _REGEX_KEYWORD.match(keyword)
        if regex:
            keyword = regex.group(1)
            notes.append(f"regex /{keyword}/ is not supported by code search: searched literally")
        if keyword.lower().startswith("symbol:"):
            keyword = keyword[len("symbol:") :]
            notes.append("symbol: is not supported by code search: searched as a keyword")
        if "(" in keyword and ")" in keyword and _BOOLEAN.search(keyword):
            keyword = keyword.replace("(", " ").replace(")", " ")
            notes.append("parenthesised boolean groups are not supported: parentheses dropped")
        keyword = " ".join(keyword.split())
        terms.append(f'"{keyword}"' if " " in keyword and not _BOOLEAN.search(keyword) else keyword)
    text = " ".join(terms)
    if len(text) > 256:
        raise InvalidQueryError(
            f"keywordsToSearch is {len(text)} characters; code search allows 256",
            hints=["Use fewer or shorter keywords."],
        )
    if len(_BOOLEAN.findall(text)) > 5:
        raise InvalidQueryError(
            "code search allows at most 5 AND/OR/NOT operators",
            hints=["Split the query into several queries of one bulk call."],
        )

    extension, filename, path = query.filters()
    if filename and "*" in filename:
        glob = _GLOB_EXTENSION.match(filename)
        if glob and not extension:
            extension, filename = glob.group(1), None
            notes.append(f"filename glob became extension:{extension}")
        else:
            filename = filename.replace("*", "") or None
            notes.append("globs are not supported in filename: the * was dropped")
    if path and "*" in path:
        head, _, last = path.rpartition("/")
        glob = _GLOB_EXTENSION.match(last)
        if glob and not extension:
            extension = glob.group(1)
        path = "/".join(part for part in head.split("/") if part and "*" not in part) or None
        notes.append(
            "globs are not supported in path: (a directory prefix): "
            f"searched path:{path or '/'}" + (f" extension:{extension}" if extension else "")
        )
    elif path and not filename:
        head, _, last = path.rpartition("/")
        if _FILE_NAME.match(last):
            filename, path = last, head or None
            notes.append(
                f"path: takes a directory prefix, so '{last}' is searched as filename:{last}"
            )
    filters = [f for f in (extension, filename, path) if f]
    if len(filters) > 2:
        notes.append("more than 2 of extension/filename/path often finds nothing: drop one")

    qualifiers = given(extension=extension, filename=filename, path=path, **{"in": query.match})
    parts = [text, *_scope(query), *(f"{name}:{value}" for name, value in qualifiers.items())]
    return " ".join(parts), notes


def _label(label: str) -> str:
    return f'label:"{label}"' if " " in label else f"label:{label}"


#: The query fields an issue search reads as qualifiers of the same name (``author:x``).
_ISSUE_QUALIFIERS = ("state", "author", "assignee", "mentions", "created", "updated", "comments")


def issue_terms(query: SearchIssuesQuery) -> str:
    """The ``q`` of an issue search: issues only (``is:issue``), pull requests never."""
    parts = ["is:issue"]
    if query.query:
        parts.append(query.query.strip())
    parts += _scope(query)
    filters = given(**{name: getattr(query, name) for name in _ISSUE_QUALIFIERS})
    parts.extend(f"{name}:{value.replace(' ', '')}" for name, value in filters.items())
    parts.extend(_label(label) for label in query.labels or [])
    return " ".join(parts)


def commit_terms(query: SearchCommitsQuery) -> str:
    """The ``q`` of a commit search: message keywords, scope, author and dates."""
    parts = [(query.query or "").strip(), *_scope(query)]
    if query.author:
        parts.append(f"author:{query.author}")
    if query.since and query.until:
        parts.append(f"committer-date:{query.since}..{query.until}")
    elif query.since:
        parts.append(f"committer-date:>={query.since}")
    elif query.until:
        parts.append(f"committer-date:<={query.until}")
    return " ".join(p for p in parts if p)


def pull_request_terms(query: SearchPullRequestsQuery) -> str:
    """The ``q`` of an issue search that finds the pull requests ``query`` asks for."""
    parts = ["is:pr"]
    if query.query:
        parts.append(query.query.strip())
    parts += _scope(query)
    if query.state:
        parts.append(f"state:{query.state}")
    if query.merged is not None:
        parts.append("is:merged" if query.merged else "is:unmerged")
    if query.draft is not None:
        parts.append(f"draft:{str(query.draft).lower()}")
    if query.author:
        parts.append(f"author:{query.author}")
    if query.assignee:
        parts.append(f"assignee:{query.assignee}")
    labels = [query.label] if isinstance(query.label, str) else query.label or []
    parts.extend(_label(label) for label in labels)
    if query.created:
        parts.append(f"created:{query.created.strip()}")
    if query.updated:
        parts.append(f"updated:{query.updated.strip()}")
    return " ".join(parts)


def repository_terms(query: SearchRepositoriesQuery) -> str:
    """The ``q`` of a repository search."""
    parts = [" ".join(query.keywordsToSearch or [])]
    parts.extend(f"topic:{topic}" for topic in query.topicsToSearch or [])
    if query.owner:
        parts.append(f"user:{query.owner}")
    for name, value in (
        ("stars", query.stars),
        ("size", query.size),
        ("created", query.created),
        ("pushed", query.updated),
    ):
        if value:
            parts.append(f"{name}:{value.replace(' ', '')}")
    if query.match:
        parts.append("in:" + ",".join(query.match))
    return " ".join(p for p in parts if p)
