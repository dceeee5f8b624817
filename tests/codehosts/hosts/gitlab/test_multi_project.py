"""Several GitLab projects in one query: GitLab cannot search chosen projects at once, so each
is asked on its own and the answers are ranked together."""

from __future__ import annotations

from typing import Any

import octo

PROJECTS = ["group/sub/project", "group/other", "group/missing"]


async def test_code_search_asks_each_project_and_interleaves_their_hits(
    gateway: octo.Gateway, recorded: Any
) -> None:
    recorded("multi_project")
    query = {"provider": "gitlab", "keywordsToSearch": ["addClass"], "repos": PROJECTS}
    [answer] = (await gateway.github_search_code([query])).to_wire()["results"]
    assert answer["status"] == "success"
    data = answer["data"]
    assert [(hit["place"], hit["file"]) for hit in data["results"]] == [
        ("group/sub/project", "src/dom.js"),
        ("group/other", "lib/classes.ts"),
        ("group/sub/project", "README.md"),
    ]
    assert data["totalCount"] == 3
    [error] = data["errors"]
    assert (error["place"], error["code"]) == ("group/missing", "NOT_FOUND")


async def test_merge_requests_of_several_projects_newest_first(
    gateway: octo.Gateway, recorded: Any
) -> None:
    recorded("multi_project")
    query = {"provider": "gitlab", "repos": PROJECTS[:2], "merged": True}
    [answer] = (await gateway.github_search_pull_requests([query])).to_wire()["results"]
    pulls = answer["data"]["pullRequests"]
    assert [(p["place"], p["title"]) for p in pulls] == [
        ("group/sub/project", "Speed up addClass"),
        ("group/other", "Typed addClass"),
        ("group/sub/project", "Fix addClass on SVG"),
    ]


async def test_a_group_wildcard_searches_the_group_projects_it_matches(
    gateway: octo.Gateway, recorded: Any
) -> None:
    recorded("group_wildcard")
    query = {"provider": "gitlab", "keywordsToSearch": ["addClass"], "repos": ["group/other*"]}
    [answer] = (await gateway.github_search_code([query])).to_wire()["results"]
    data = answer["data"]
    # Both pages of the group's projects read; group/docs does not match the prefix.
    assert data["places"] == ["group/other", "group/other-tools"]
    assert sorted(hit["place"] for hit in data["results"]) == ["group/other", "group/other-tools"]
    assert answer["hints"][0] == "group/other* matched 2 repositories; all are searched."


async def test_a_user_namespace_wildcard_lists_the_users_projects(
    gateway: octo.Gateway, recorded: Any
) -> None:
    recorded("group_wildcard")
    query = {"provider": "gitlab", "keywordsToSearch": ["addClass"], "repos": ["alice/*"]}
    [answer] = (await gateway.github_search_code([query])).to_wire()["results"]
    assert answer["status"] == "empty"
    assert answer["data"]["places"] == ["alice/dotfiles"]
