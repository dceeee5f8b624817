"""Every form an npm registry or a Python index gives for a source repository, normalised to
one shape."""

from __future__ import annotations

import pytest

from octo.packages.models import PackageRepository
from octo.packages.repository_url import normalize_label
from octo.packages.repository_url import normalize_repository
from octo.packages.repository_url import repository_from_project_urls


def gh(
    owner: str, repo: str, directory: str | None = None, webUrl: str | None = None
) -> PackageRepository:
    return PackageRepository(
        url=f"https://github.com/{owner}/{repo}",
        owner=owner,
        repo=repo,
        directory=directory,
        webUrl=webUrl,
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"type": "git", "url": "git+https://github.com/axios/axios.git"}, gh("axios", "axios")),
        ({"type": "git", "url": "https://github.com/axios/axios.git"}, gh("axios", "axios")),
        ("git+https://github.com/axios/axios.git", gh("axios", "axios")),
        ("git://github.com/isaacs/node-glob.git", gh("isaacs", "node-glob")),
        ("git+ssh://git@github.com/npm/cli.git", gh("npm", "cli")),
        ("ssh://git@github.com:22/npm/cli.git", gh("npm", "cli")),
        ("git@github.com:stevemao/left-pad.git", gh("stevemao", "left-pad")),
        ("git+https://github.com/o/r.git#v1.2.3", gh("o", "r")),
        ("https://github.com/o/r/", gh("o", "r")),
        ("http://github.com/o/r", gh("o", "r")),
        ("expressjs/express", gh("expressjs", "express")),
        ("github:sindresorhus/got", gh("sindresorhus", "got")),
        (
            "gitlab:group/sub/project",
            PackageRepository(
                url="https://gitlab.com/group/sub/project",
                owner="group/sub",
                repo="project",
            ),
        ),
        (
            "bitbucket:atlassian/pkg",
            PackageRepository(
                url="https://bitbucket.org/atlassian/pkg",
                owner="atlassian",
                repo="pkg",
            ),
        ),
        (
            "gist:11081aaa281",
            PackageRepository(
                url="https://gist.github.com/11081aaa281",
                repo="11081aaa281",
            ),
        ),
    ],
)
def test_repository_forms(value: object, expected: PackageRepository) -> None:
    assert normalize_repository(value) == expected


def test_monorepo_directory_object() -> None:
    found = normalize_repository(
        {
            "type": "git",
            "url": "https://github.com/babel/babel.git",
            "directory": "packages/babel-core/",
        }
    )
    assert found == gh(
        "babel",
        "babel",
        directory="packages/babel-core",
        webUrl="https://github.com/babel/babel/tree/HEAD/packages/babel-core",
    )


def test_folder_in_a_browse_url_becomes_the_directory() -> None:
    found = normalize_repository("https://github.com/facebook/react/tree/main/packages/react")
    assert found is not None
    assert (found.owner, found.repo, found.directory) == ("facebook", "react", "packages/react")


def test_gitlab_nested_groups_and_folder() -> None:
    found = normalize_repository(
        {"url": "https://gitlab.example.test/a/b/c.git", "directory": "libs/x"}
    )
    assert found is not None
    assert (found.owner, found.repo) == ("a/b", "c")
    assert found.webUrl == "https://gitlab.example.test/a/b/c/-/tree/HEAD/libs/x"
    page = normalize_repository("https://gitlab.com/g/sub/p/-/tree/main/src/lib")
    assert page is not None
    assert (page.owner, page.repo, page.directory) == ("g/sub", "p", "src/lib")


@pytest.mark.parametrize(
    "value",
    [
        None,
        "",
        "   ",
        42,
        {"type": "git"},
        "file:///tmp/x",
        "https://github.com/onlyowner",
        "nonsense",
    ],
)
def test_unusable_values_give_none(value: object) -> None:
    assert normalize_repository(value) is None


def test_pep753_label_normalisation() -> None:
    assert normalize_label("Source Code") == "sourcecode"
    assert normalize_label("source_code") == "sourcecode"
    assert normalize_label("Repository:") == "repository"


@pytest.mark.parametrize(
    ("urls", "home_page", "owner_repo"),
    [
        (
            {"Documentation": "https://docs.test", "Source": "https://github.com/psf/requests"},
            None,
            ("psf", "requests"),
        ),
        ({"Source Code": "https://github.com/a/b"}, None, ("a", "b")),
        ({"repository": "https://gitlab.com/g/s/p"}, None, ("g/s", "p")),
        ({"Code": "https://codeberg.org/x/y"}, None, ("x", "y")),
        (
            {"Homepage": "https://github.com/encode/httpx", "Docs": "https://www.example.test"},
            None,
            ("encode", "httpx"),
        ),
        ({"Issues": "https://github.com/o/r/issues"}, None, ("o", "r")),
        ({}, "https://github.com/benjaminp/six", ("benjaminp", "six")),
    ],
)
def test_project_urls(
    urls: dict[str, str], home_page: str | None, owner_repo: tuple[str, str]
) -> None:
    found = repository_from_project_urls(urls, home_page)
    assert found is not None
    assert (found.owner, found.repo) == owner_repo


def test_source_label_beats_a_forge_homepage() -> None:
    found = repository_from_project_urls(
        {"Homepage": "https://github.com/org/site", "Source": "https://github.com/org/code"}
    )
    assert found is not None and found.repo == "code"


def test_no_repository_among_non_forge_urls_and_funding() -> None:
    urls = {"Homepage": "https://www.example.test", "Funding": "https://github.com/sponsors/me"}
    assert repository_from_project_urls(urls, "https://www.example.test") is None


def test_configured_forge_host_counts() -> None:
    urls = {"Homepage": "https://git.corp.test/team/tool"}
    assert repository_from_project_urls(urls) is None
    found = repository_from_project_urls(urls, forge_hosts=["git.corp.test"])
    assert found is not None and (found.owner, found.repo) == ("team", "tool")
