"""GitHub's answers about a line's history in host-neutral shapes: the GraphQL blame of a
file, and the pull requests of a commit (REST ``commits/{sha}/pulls``)."""

from __future__ import annotations

from typing import Any

import httpx

from octo.codehosts.models.lines import BlameRange
from octo.codehosts.models.lines import IssueRef
from octo.codehosts.models.lines import PullRef
from octo.core.errors import AuthenticationError
from octo.core.errors import InvalidResponseError
from octo.core.errors import NotFoundError
from octo.core.errors import RateLimitError

#: The blame of one file at one commit; GitHub answers ranges for the whole file.
BLAME_QUERY = """
query($owner: String!, $repo: String!, $sha: GitObjectID!, $path: String!) {
  repository(owner: $owner, name: $repo) {
    object(oid: $sha) {
      ... on Commit {
        blame(path: $path) {
          ranges {
            startingLine endingLine
            commit { oid messageHeadline authoredDate author { name } }
          }
        }
      }
    }
  }
}
"""


#: The issues GitHub links to a pull request as closed by it.
CLOSING_ISSUES_QUERY = """
query($owner: String!, $repo: String!, $number: Int!) {
  repository(owner: $owner, name: $repo) {
    pullRequest(number: $number) {
      closingIssuesReferences(first: 10) {
        nodes { number title state url body repository { nameWithOwner } }
      }
    }
  }
}
"""


def graphql_url(api_url: str) -> str:
    """GitHub's GraphQL endpoint beside its REST API: ``https://api.github.com/graphql``,
    ``https://HOST/api/graphql`` on GitHub Enterprise (REST at ``/api/v3``)."""
    if api_url.endswith("/api/v3"):
        return api_url.removesuffix("/v3") + "/graphql"
    return f"{api_url}/graphql"


def _data(response: httpx.Response) -> dict[str, Any]:
    """The ``data`` of a GraphQL answer; its ``errors`` (an HTTP 200) as typed errors."""
    body = response.json()
    errors: list[dict[str, Any]] = body.get("errors") or []
    if errors:
        kinds = {e.get("type") for e in errors}
        message = "; ".join(str(e.get("message", "")) for e in errors)[:300]
        if "RATE_LIMITED" in kinds:
            raise RateLimitError(f"GitHub GraphQL: {message}")
        if "NOT_FOUND" in kinds:
            raise NotFoundError(f"GitHub: {message}", hints=["Check owner, repo, ref and path."])
        if "FORBIDDEN" in kinds:
            raise AuthenticationError(f"GitHub: {message}")
        raise InvalidResponseError(f"GitHub GraphQL: {message}")
    data = body.get("data")
    if not isinstance(data, dict):
        raise InvalidResponseError("GitHub's GraphQL answer has no data")
    return data


def parse_blame(response: httpx.Response) -> list[BlameRange]:
    """The ranges of a GraphQL blame answer."""
    data = _data(response)
    try:
        commit = data["repository"]["object"]
        if commit is None or commit.get("blame") is None:
            raise NotFoundError("GitHub has no such commit or file", hints=["Check ref and path."])
        return [
            BlameRange(
                startLine=int(r["startingLine"]),
                endLine=int(r["endingLine"]),
                sha=r["commit"]["oid"],
                author=(r["commit"].get("author") or {}).get("name") or "",
                date=r["commit"].get("authoredDate") or "",
                summary=r["commit"].get("messageHeadline") or "",
            )
            for r in commit["blame"]["ranges"]
        ]
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidResponseError(f"GitHub's blame answer is not as expected: {exc}") from None


def parse_commit_pulls(response: httpx.Response) -> list[PullRef]:
    """The pull requests ``/repos/{o}/{r}/commits/{sha}/pulls`` lists."""
    return [
        PullRef(
            number=int(item["number"]),
            title=item.get("title") or "",
            state="merged" if item.get("merged_at") else item.get("state") or "",
            url=item.get("html_url") or "",
            body=item.get("body") or "",
            repository=((item.get("base") or {}).get("repo") or {}).get("full_name") or "",
        )
        for item in response.json()
    ]


def parse_closing_issues(response: httpx.Response) -> list[IssueRef]:
    """The issues of ``closingIssuesReferences`` (none for a pull request GitHub lost)."""
    data = _data(response)
    pull = (data.get("repository") or {}).get("pullRequest") or {}
    nodes = (pull.get("closingIssuesReferences") or {}).get("nodes") or []
    return [
        IssueRef(
            repository=(node.get("repository") or {}).get("nameWithOwner") or "",
            number=int(node["number"]),
            title=node.get("title") or "",
            state=str(node.get("state") or "").lower(),
            url=node.get("url"),
            body=node.get("body") or "",
            closes=True,
        )
        for node in nodes
        if node and node.get("number") is not None
    ]
