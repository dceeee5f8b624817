"""localSearchCode on the real rg, against trees built per test."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from octo.core.errors import CallError
from octo.core.secrets.sensitive import is_sensitive
from octo.local.search.rg_output import MatchingFile
from octo.local.search.rg_output import shown_files
from tests.local.conftest import Call
from tests.local.conftest import CallOne
from tests.local.conftest import Tree
from tests.local.conftest import hinted_query
from tests.local.conftest import paths


async def test_finds_matches_with_paths_relative_to_the_reported_root(
    tree: Tree, search: CallOne
) -> None:
    root = tree({"src/app.py": "import os\ndef load():\n    return 1\n", "README.md": "load it\n"})
    found = await search(pattern="load", path="src")
    assert found["status"] == "success"
    data = found["data"]
    assert data["root"] == str(root / "src")
    assert data["files"] == [
        {
            "path": "app.py",
            "matchCount": 1,
            "matches": [{"lineNumber": 2, "content": "def load():"}],
        }
    ]
    assert data["stats"]["filesWithMatches"] == 1
    assert data["stats"]["totalMatches"] == 1
    assert data["stats"]["complete"] is True
    assert isinstance(data["stats"]["searchTimeMs"], int)
    assert data["pagination"] == {"currentPage": 1, "totalPages": 1, "hasMore": False}


async def test_searches_a_single_file(tree: Tree, search: CallOne) -> None:
    root = tree({"a.py": "x = 1\n", "b.py": "x = 2\n"})
    found = await search(pattern="x", path="b.py")
    assert found["data"]["root"] == str(root)
    assert paths(found) == ["b.py"]


async def test_regex_and_fixed_string(tree: Tree, search: CallOne) -> None:
    tree({"a.txt": "abc\na.c\n"})
    regex = await search(pattern="a.c", path=".")
    assert [m["content"] for m in regex["data"]["files"][0]["matches"]] == ["abc", "a.c"]
    literal = await search(pattern="a.c", path=".", fixedString=True)
    assert [m["content"] for m in literal["data"]["files"][0]["matches"]] == ["a.c"]


async def test_smart_case(tree: Tree, search: CallOne) -> None:
    tree({"a.txt": "Widget\nwidget\n"})
    lower = await search(pattern="widget", path=".")
    assert lower["data"]["files"][0]["matchCount"] == 2
    upper = await search(pattern="Widget", path=".")
    assert [m["lineNumber"] for m in upper["data"]["files"][0]["matches"]] == [1]
    sensitive = await search(pattern="widget", path=".", smartCase=False)
    assert [m["lineNumber"] for m in sensitive["data"]["files"][0]["matches"]] == [2]


async def test_type_filter(tree: Tree, search: CallOne) -> None:
    tree({"a.py": "token\n", "b.js": "token\n", "c.md": "token\n"})
    found = await search(pattern="token", path=".", type="py")
    assert paths(found) == ["a.py"]


async def test_include_and_exclude_globs(tree: Tree, search: CallOne) -> None:
    tree(
        {
            "src/a.py": "needle\n",
            "src/b.txt": "needle\n",
            "tests/test_a.py": "needle\n",
            "vendor/x.py": "needle\n",
        }
    )
    included = await search(pattern="needle", path=".", include=["*.py"])
    assert paths(included) == ["src/a.py", "tests/test_a.py", "vendor/x.py"]
    excluded = await search(
        pattern="needle", path=".", include="*.py", exclude=["tests/**", "!vendor"]
    )
    assert paths(excluded) == ["src/a.py"]


async def test_files_only_lists_paths_alone(tree: Tree, search: CallOne) -> None:
    tree({"a.py": "hit\nhit\n", "b.py": "hit\n", "c.py": "miss\n"})
    found = await search(pattern="hit", path=".", filesOnly=True)
    # Nothing the query did not ask for: no counts (countOnly's answer), no dates.
    assert found["data"]["files"] == [{"path": "a.py"}, {"path": "b.py"}]
    assert found["data"]["stats"]["totalMatches"] == 3
    assert hinted_query(found, "See the matching lines") == {"pattern": "hit", "path": "."}
    discovery = await search(pattern="hit", path=".", mode="discovery", filesPerPage=1)
    # The mode's own settings are not repeated in the follow-up queries.
    assert hinted_query(discovery, "Next page") == {
        "pattern": "hit",
        "path": ".",
        "mode": "discovery",
        "filesPerPage": 1,
        "filePageNumber": 2,
    }
    assert hinted_query(discovery, "See the matching lines") == {
        "pattern": "hit",
        "path": ".",
        "filesPerPage": 1,
    }


async def test_context_lines_attach_each_line_once(tree: Tree, search: CallOne) -> None:
    lines = ["l1", "l2", "HIT3", "l4", "HIT5", "l6", "l7", "l8", "l9", "l10", "HIT11", "l12"]
    tree({"f.txt": "\n".join(lines) + "\n"})
    found = await search(pattern="HIT", path=".", contextLines=2)
    assert found["data"]["files"][0]["matches"] == [
        {"lineNumber": 3, "content": "HIT3", "beforeContext": ["l1", "l2"], "afterContext": ["l4"]},
        {"lineNumber": 5, "content": "HIT5", "afterContext": ["l6", "l7"]},
        {
            "lineNumber": 11,
            "content": "HIT11",
            "beforeContext": ["l9", "l10"],
            "afterContext": ["l12"],
        },
    ]


async def test_matches_per_page_pages_matches_within_a_file(tree: Tree, search: CallOne) -> None:
    tree({"f.txt": "hit 1\nctx\nhit 3\nhit 4\nhit 5\n"})
    found = await search(pattern="hit", path=".", matchesPerPage=2, contextLines=1)
    entry = found["data"]["files"][0]
    assert entry["matchCount"] == 4
    assert entry["pagination"] == {"currentPage": 1, "hasMore": True, "matchesOnPage": 2}
    # The last shown match's after-context stops at the next (unshown) match.
    assert entry["matches"] == [
        {"lineNumber": 1, "content": "hit 1", "afterContext": ["ctx"]},
        {"lineNumber": 3, "content": "hit 3"},
    ]
    more = hinted_query(found, "f.txt has 4 matching lines, 2 shown")
    assert more == {
        "pattern": "hit",
        "path": found["data"]["root"] + "/f.txt",
        "contextLines": 1,
        "matchesPerPage": 4,
    }
    assert len((await search(**more))["data"]["files"][0]["matches"]) == 4
    tree({"g.txt": "hit\n" * 101})
    most = await search(pattern="hit", path="g.txt", matchesPerPage=100)
    assert hinted_query(most, "g.txt has 101 matching lines, 100 shown") == {
        "path": found["data"]["root"] + "/g.txt",
        "matchString": "hit",
    }


async def test_file_pages_follow_the_next_page_hint_to_the_end(tree: Tree, search: CallOne) -> None:
    names = [f"d{i % 3}/f{i:02d}.txt" for i in range(7)]
    tree({name: "needle\n" for name in names})
    seen: list[str] = []
    query: dict[str, Any] = {"pattern": "needle", "path": ".", "filesPerPage": 3}
    pages = []
    while True:
        page = await search(**query)
        pages.append(page["data"]["pagination"])
        seen += paths(page)
        if not page["data"]["pagination"]["hasMore"]:
            break
        assert page["data"]["stats"]["complete"] is True
        assert page["data"]["pagination"]["totalPages"] == 3
        query = hinted_query(page, "Next page")
    assert seen == sorted(names)
    assert [p["currentPage"] for p in pages] == [1, 2, 3]
    assert pages[-1] == {"currentPage": 3, "totalPages": 3, "hasMore": False}


@pytest.mark.slow
async def test_stats_are_exact_on_every_page(tree: Tree, search: CallOne) -> None:
    tree({f"f{i:03d}.txt": "needle\nneedle\n" for i in range(300)} | {"other.txt": "hay\n"})
    found = await search(pattern="needle", path=".", filesPerPage=2, filePageNumber=2)
    data = found["data"]
    assert paths(found) == ["f002.txt", "f003.txt"]
    assert data["stats"] == {
        "filesSearched": 301,
        "filesWithMatches": 300,
        "totalMatches": 600,
        "searchTimeMs": data["stats"]["searchTimeMs"],
        "complete": True,
    }
    assert data["pagination"] == {"currentPage": 2, "totalPages": 150, "hasMore": True}
    assert hinted_query(found, "Next page")["filePageNumber"] == 3
    last = await search(pattern="needle", path=".", filesPerPage=20, filePageNumber=15)
    assert paths(last)[-1] == "f299.txt"
    assert last["data"]["stats"]["filesWithMatches"] == 300
    assert last["data"]["pagination"] == {"currentPage": 15, "totalPages": 15, "hasMore": False}
    assert not any(h.startswith("Next page") for h in last["hints"])


async def test_files_come_in_rgs_path_order(tree: Tree, search: CallOne) -> None:
    # Component by component, as rg --sort=path: a directory "a" before the file "a.txt",
    # although "." sorts before "/" in the joined strings.
    tree({"a.txt": "needle\n", "a/z.txt": "needle\n", "B.txt": "needle\n", "a-b/y.txt": "needle\n"})
    found = await search(pattern="needle", path=".")
    assert paths(found) == ["B.txt", "a/z.txt", "a-b/y.txt", "a.txt"]
    listed = await search(pattern="needle", path=".", filesOnly=True, filesPerPage=2)
    assert paths(listed) == ["B.txt", "a/z.txt"]


async def test_odd_file_names_survive_both_passes(tree: Tree, search: CallOne) -> None:
    tree({"line\nbreak.txt": "needle one\n", "col:on.txt": "needle two\n", "plain.txt": "x\n"})
    (tree({}) / os.fsdecode(b"latin\xe9.txt")).write_text("needle three\n")
    found = await search(pattern="needle", path=".")
    files = found["data"]["files"]
    assert [(f["path"], f["matches"][0]["content"]) for f in files] == [
        ("col:on.txt", "needle two"),
        ("latin\ufffd.txt", "needle three"),
        ("line\nbreak.txt", "needle one"),
    ]
    assert found["data"]["stats"]["filesSearched"] == 4
    listed = await search(pattern="needle", path=".", filesOnly=True)
    assert paths(listed) == ["col:on.txt", "latin\ufffd.txt", "line\nbreak.txt"]


async def test_many_matches_in_a_file_keep_its_full_count(tree: Tree, search: CallOne) -> None:
    tree({"big.txt": "needle\n" * 5000, "small.txt": "needle\n"})
    found = await search(pattern="needle", path=".", matchesPerPage=3)
    big, small = found["data"]["files"]
    assert big["matchCount"] == 5000
    assert [m["lineNumber"] for m in big["matches"]] == [1, 2, 3]
    assert big["pagination"] == {"currentPage": 1, "hasMore": True, "matchesOnPage": 3}
    assert small["matchCount"] == 1 and "pagination" not in small
    assert found["data"]["stats"]["totalMatches"] == 5001


async def test_opted_in_files_keep_their_matches(tree: Tree, search: CallOne) -> None:
    # The detail pass names the page's files explicitly: it must show the same files'
    # lines whatever filter let them onto the page.
    tree({".gitignore": "build/\n", "build/out.py": "needle 1\n", ".cfg/x.txt": "needle 2\n"})
    found = await search(pattern="needle", path=".", hidden=True, noIgnore=True, exclude=[".git*"])
    assert [(f["path"], [m["content"] for m in f["matches"]]) for f in found["data"]["files"]] == [
        (".cfg/x.txt", ["needle 2"]),
        ("build/out.py", ["needle 1"]),
    ]


async def test_page_past_the_end_is_empty_with_a_hint(tree: Tree, search: CallOne) -> None:
    tree({"a.txt": "needle\n"})
    found = await search(pattern="needle", path=".", filePageNumber=3)
    assert found["status"] == "empty"
    assert hinted_query(found, "Page 3 is past the last page (1)") == {
        "pattern": "needle",
        "path": ".",
        "filePageNumber": 1,
    }


async def test_modes_are_presets_and_explicit_parameters_win(tree: Tree, search: CallOne) -> None:
    tree({"f.txt": "\n".join(f"line {i} hit" if i % 2 else f"line {i}" for i in range(60)) + "\n"})
    discovery = await search(pattern="hit", path=".", mode="discovery")
    assert "matches" not in discovery["data"]["files"][0]
    detailed = await search(pattern="hit", path=".", mode="detailed")
    matches = detailed["data"]["files"][0]["matches"]
    assert len(matches) == 20
    assert matches[0]["beforeContext"] == ["line 0"]
    paginated = await search(pattern="hit", path=".", mode="paginated")
    assert len(paginated["data"]["files"][0]["matches"]) == 10
    overridden = await search(
        pattern="hit", path=".", mode="detailed", contextLines=0, matchesPerPage=3
    )
    assert overridden["data"]["files"][0]["matches"] == [
        {"lineNumber": 2, "content": "line 1 hit"},
        {"lineNumber": 4, "content": "line 3 hit"},
        {"lineNumber": 6, "content": "line 5 hit"},
    ]


async def test_long_lines_are_cut_around_the_match(tree: Tree, search: CallOne) -> None:
    tree({"app.min.js": "a" * 5000 + "NEEDLE" + "b" * 5000 + "\n"})
    found = await search(pattern="NEEDLE", path=".")
    content = found["data"]["files"][0]["matches"][0]["content"]
    assert "NEEDLE" in content
    assert len(content) < 400
    assert content.startswith("[...") and content.endswith(" chars]")


async def test_invalid_regex_is_an_invalid_query_with_rgs_message(
    tree: Tree, search: CallOne
) -> None:
    tree({"a.txt": "x\n"})
    found = await search(pattern="foo(", path=".")
    assert found["status"] == "error"
    assert found["error"]["code"] == "INVALID_QUERY"
    assert "unclosed group" in found["error"]["message"]
    assert any("fixedString" in h for h in found["hints"])


async def test_unknown_type_is_an_invalid_query(tree: Tree, search: CallOne) -> None:
    tree({"a.txt": "x\n"})
    found = await search(pattern="x", path=".", type="notatype")
    assert found["error"]["code"] == "INVALID_QUERY"
    assert "notatype" in found["error"]["message"]


async def test_missing_path_is_not_found_with_a_hint(tree: Tree, search: CallOne) -> None:
    tree({"src/a.txt": "x\n"})
    found = await search(pattern="x", path="src/nope")
    assert found["error"]["code"] == "NOT_FOUND"
    assert any(h.startswith("Find it: localFindFiles") for h in found["hints"])


async def test_paths_outside_the_roots_are_refused(
    tree: Tree, search: CallOne, tmp_path: Path
) -> None:
    root = tree({"a.txt": "x\n"})
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("x\n")
    for path in (str(tmp_path / "outside"), "../outside", "/etc"):
        found = await search(pattern="x", path=path)
        assert found["error"]["code"] == "PATH_NOT_ALLOWED", path
    (root / "link").symlink_to(tmp_path / "outside", target_is_directory=True)
    found = await search(pattern="x", path="link")
    assert found["error"]["code"] == "PATH_NOT_ALLOWED"


async def test_symlinks_inside_the_tree_are_not_followed_out_of_it(
    tree: Tree, search: CallOne, tmp_path: Path
) -> None:
    root = tree({"a.txt": "marker here\n"})
    (tmp_path / "outside.txt").write_text("marker outside\n")
    (root / "escape.txt").symlink_to(tmp_path / "outside.txt")
    found = await search(pattern="marker", path=".")
    assert paths(found) == ["a.txt"]


async def test_gitignore_is_respected_unless_no_ignore(tree: Tree, search: CallOne) -> None:
    tree(
        {
            ".gitignore": "build/\n*.log\n",
            "src/a.py": "needle\n",
            "build/out.py": "needle\n",
            "x.log": "needle\n",
        }
    )
    found = await search(pattern="needle", path=".")
    assert paths(found) == ["src/a.py"]
    everything = await search(pattern="needle", path=".", noIgnore=True)
    assert paths(everything) == ["build/out.py", "src/a.py", "x.log"]


async def test_hidden_files_need_opt_in(tree: Tree, search: CallOne) -> None:
    tree({".github/ci.yml": "needle\n", ".hidden.txt": "needle\n", "a.txt": "needle\n"})
    found = await search(pattern="needle", path=".")
    assert paths(found) == ["a.txt"]
    with_hidden = await search(pattern="needle", path=".", hidden=True)
    assert paths(with_hidden) == [".github/ci.yml", ".hidden.txt", "a.txt"]
    refused = await search(pattern="needle", path=".github")
    assert refused["error"]["code"] == "PATH_NOT_ALLOWED"
    assert refused["hints"] == [
        'To use it anyway: localSearchCode {"pattern":"needle","path":".github","hidden":true}'
    ]
    allowed = await search(pattern="needle", path=".github", hidden=True)
    assert paths(allowed) == ["ci.yml"]


async def test_a_dot_file_an_include_glob_matches_needs_the_opt_in(
    tree: Tree, search: CallOne
) -> None:
    # rg lists it (a glob names it); octo leaves it out of the answer and its stats.
    tree({".hidden.txt": "needle\n", "a.txt": "needle\n", "b/.c/d.txt": "needle\n"})
    found = await search(pattern="needle", path=".", include=["*.txt"], filesOnly=True)
    assert paths(found) == ["a.txt"]
    assert found["data"]["stats"]["filesWithMatches"] == 1
    opted = await search(pattern="needle", path=".", include=["*.txt"], hidden=True)
    assert paths(opted) == [".hidden.txt", "a.txt", "b/.c/d.txt"]


@pytest.mark.parametrize("include_hidden", [False, True])
@pytest.mark.parametrize("include_sensitive", [False, True])
def test_the_files_shown_are_those_each_check_keeps(
    include_hidden: bool, include_sensitive: bool
) -> None:
    args = [
        b"./a.py",
        b"./.hidden.py",
        b"./src/.cache/x.py",
        b"./src/x.y/z.py",
        b".top",
        b"../up.py",
        b"src/.b",
        b"line\n.break",
        b"/proc/self/fd/6",
        b"./.env",
        b"./conf/SECRETS.yaml",
        b"./keys/server.pem",
        b"./test_netrc.py",
        "./caf\u00e9.py".encode(),
    ]
    files = [MatchingFile(arg, 1) for arg in args]
    expected = [
        entry
        for entry in files
        if (include_hidden or not entry.hidden)
        and (include_sensitive or not is_sensitive(entry.path))
    ]
    assert len(expected) < len(files) or (include_hidden and include_sensitive)
    kept = shown_files(files, include_sensitive=include_sensitive, include_hidden=include_hidden)
    assert kept == expected
    plain = [MatchingFile(b"./a.py", 1), MatchingFile(b"./src/b.py", 2)]
    assert shown_files(plain, include_sensitive=False, include_hidden=False) == plain


async def test_sensitive_files_need_opt_in_and_stay_redacted(tree: Tree, search: CallOne) -> None:
    tree(
        {
            ".env": "API_TOKEN=supersecretvalue\n",
            "secrets.json": '{"password": "hunter2hunter2"}\n',
            "server.pem": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----\n",
            "app.py": "token = load()\n",
        }
    )
    found = await search(pattern="token|password|BEGIN", path=".", hidden=True)
    assert paths(found) == ["app.py"]
    refused = await search(pattern="password", path="secrets.json")
    assert refused["error"]["code"] == "PATH_NOT_ALLOWED"
    assert refused["hints"] == [
        "To use it anyway (secrets stay redacted): localSearchCode "
        '{"pattern":"password","path":"secrets.json","includeSensitive":true}'
    ]
    opted = await search(pattern="token|password", path=".", hidden=True, includeSensitive=True)
    assert paths(opted) == [".env", "app.py", "secrets.json"]
    contents = [f["matches"][0]["content"] for f in opted["data"]["files"]]
    assert contents == [
        "API_TOKEN=[REDACTED:secret]",
        "token = load()",
        '{"password": "[REDACTED:secret]"}',
    ]


async def test_secrets_in_matches_and_context_are_redacted(tree: Tree, search: CallOne) -> None:
    key_body = "MIIEpAIBAAKCAQEA75qLkFxyz0123456789abcdefABCDEF"
    tree(
        {
            "config.py": 'API_KEY = "abcdef1234567890"\nDB = "postgres://admin:pa55word@db/x"\n',
            "fixture.py": "KEY = '''\n-----BEGIN RSA PRIVATE KEY-----\n"
            + f"{key_body}\n{key_body}\n-----END RSA PRIVATE KEY-----\n'''\n",
        }
    )
    found = await search(pattern="API_KEY|postgres", path="config.py")
    assert [m["content"] for m in found["data"]["files"][0]["matches"]] == [
        'API_KEY = "[REDACTED:secret]"',
        'DB = "postgres://[REDACTED:url-credentials]@db/x"',
    ]
    keyed = await search(pattern="BEGIN RSA", path="fixture.py", contextLines=3)
    match = keyed["data"]["files"][0]["matches"][0]
    assert key_body not in json.dumps(match)
    assert match["afterContext"][:2] == ["[REDACTED:private-key]"] * 2


async def test_empty_result_explains_itself(tree: Tree, search: CallOne) -> None:
    tree({"a.py": "Hello\n", "b.txt": "hello\n"})
    found = await search(pattern="Hello(", path=".", type="py", fixedString=False, smartCase=False)
    assert found["error"]["code"] == "INVALID_QUERY"
    found = await search(pattern="Hello.World", path=".", type="py", smartCase=False)
    assert found["status"] == "empty"
    data = found["data"]
    assert data["files"] == []
    assert data["stats"]["filesSearched"] == 1
    assert data["pagination"]["totalPages"] == 0
    hints = found["hints"]
    assert any(h.startswith("Drop a filter (type)") for h in hints)
    assert hinted_query(found, "Ignore case") == {
        "pattern": "hello.world",
        "path": ".",
        "type": "py",
    }
    assert hinted_query(found, "The pattern is a regex")["fixedString"] is True
    included = hinted_query(found, "Dot-files and .gitignored files were skipped")
    assert included["hidden"] is True and included["noIgnore"] is True
    escaped = await search(pattern="Hello\\W", path=".")
    # Lower-casing \W would turn it into \w: no ignore-case hint then.
    assert not any(h.startswith("Ignore case") for h in escaped["hints"])
    nothing = await search(pattern="x", path=".", include=["*.rs"])
    assert nothing["data"]["stats"]["filesSearched"] == 0
    assert any("No file passed the filters" in h for h in nothing["hints"])


async def test_success_hints_lead_to_a_working_read(
    tree: Tree, search: CallOne, read: CallOne
) -> None:
    tree({"src/a.py": "one\ndef Load(x):\n    pass\n"})
    found = await search(pattern="def Load\\(", path="src")
    follow = hinted_query(found, "Read around a hit")
    assert follow == {
        "path": found["data"]["root"] + "/a.py",
        "matchString": "def Load\\(",
        "matchStringIsRegex": True,
        "matchStringCaseSensitive": True,
    }
    opened = await read(**follow)
    assert opened["data"]["matchedLines"][0] == 2


async def test_bulk_with_one_invalid_query(tree: Tree, call: Call) -> None:
    tree({"a.py": "alpha\nbeta\n", "b.txt": "gamma\n"})
    results = await call(
        "localSearchCode",
        {"pattern": "alpha", "path": "."},
        {"pattern": "beta", "path": ".", "filesPerPage": 50},
        {"pattern": "gamma", "path": "."},
        {"pattern": "delta", "path": "."},
        {"pattern": "a", "path": ".", "type": "py", "researchGoal": "find a"},
    )
    assert [r["status"] for r in results] == ["success", "error", "success", "empty", "success"]
    assert [r["queryIndex"] for r in results] == [0, 1, 2, 3, 4]
    assert results[1]["error"]["code"] == "VALIDATION_ERROR"
    assert "filesPerPage" in results[1]["error"]["message"]
    assert results[4]["researchGoal"] == "find a"


async def test_more_than_five_queries_is_a_call_error(tree: Tree, call: Call) -> None:
    tree({"a.txt": "x\n"})
    with pytest.raises(CallError, match="1-5"):
        await call("localSearchCode", *({"pattern": "x", "path": "."} for _ in range(6)))


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"path": "."}, "pattern"),
        ({"pattern": "", "path": "."}, "pattern"),
        ({"pattern": "x"}, "path"),
        ({"pattern": "x", "path": ".", "mode": "fast"}, "mode"),
        ({"pattern": "x", "path": ".", "contextLines": 51}, "contextLines"),
        ({"pattern": "x", "path": ".", "contextLines": -1}, "contextLines"),
        ({"pattern": "x", "path": ".", "matchesPerPage": 0}, "matchesPerPage"),
        ({"pattern": "x", "path": ".", "matchesPerPage": 101}, "matchesPerPage"),
        ({"pattern": "x", "path": ".", "filesPerPage": 0}, "filesPerPage"),
        ({"pattern": "x", "path": ".", "filesPerPage": 21}, "filesPerPage"),
        ({"pattern": "x", "path": ".", "filePageNumber": 0}, "filePageNumber"),
        ({"pattern": "x", "path": ".", "type": "py; rm"}, "type"),
        ({"pattern": "x", "path": ".", "include": [" "]}, "include"),
        ({"pattern": "x", "path": ".", "exclude": [""]}, "exclude"),
        ({"pattern": "x", "path": ".", "fixedString": "maybe"}, "fixedString"),
        ({"pattern": "x", "path": ".", "colour": True}, "colour"),
    ],
)
async def test_validation_errors_name_the_field(
    tree: Tree, call: Call, query: dict[str, Any], field: str
) -> None:
    tree({"a.txt": "x\n"})
    bad, good = await call("localSearchCode", query, {"pattern": "x", "path": "."})
    assert bad["error"]["code"] == "VALIDATION_ERROR"
    assert field in bad["error"]["message"]
    assert any(h.startswith(("Valid form of this query", "Valid example")) for h in bad["hints"])
    assert good["status"] == "success"


async def test_max_filesize_skips_big_files(root: Path) -> None:
    import octo
    from octo.core.config import Config

    (root / "big.txt").write_text("needle\n" + "x" * 4096)
    (root / "small.txt").write_text("needle\n")
    async with octo.Gateway(Config(rg_max_filesize="1K"), roots=[root]) as gw:
        response = await gw.local_search_code([{"pattern": "needle", "path": "."}])
    assert [f.path for f in response.results[0].data.files] == ["small.txt"]


async def test_special_files_are_refused(tree: Tree, search: CallOne) -> None:
    root = tree({"a.txt": "x\n"})
    os.mkfifo(root / "pipe")
    found = await search(pattern="x", path="pipe")
    assert found["error"]["code"] == "INVALID_QUERY"


async def test_every_page_reports_its_size_in_tokens(tree: Tree, search: CallOne) -> None:
    tree({"a.txt": "needle one\n", "b.txt": "needle two\n"})
    data = (await search(pattern="needle", path="."))["data"]
    tokens = data["tokens"]
    # The whole data as sent counts, not only the lines and paths shown.
    assert tokens["chars"] == len(json.dumps(data, separators=(",", ":"), ensure_ascii=False))
    assert tokens["estimatedTokens"] == -(-tokens["chars"] // 4)
    assert (tokens["truncated"], tokens["requiresPagination"]) == (False, False)
    paged = (await search(pattern="needle", path=".", filesPerPage=1))["data"]["tokens"]
    assert (paged["truncated"], paged["requiresPagination"]) == (False, True)
    assert paged["paginationHint"] == "More content: continue with filePageNumber=2"


async def test_matches_beyond_the_token_budget_are_cut_with_a_way_to_read_them(
    root: Path,
) -> None:
    import octo
    from octo.core.config import Config

    line = "needle " + "x" * 40
    (root / "a.txt").write_text("".join(f"{line}\nfiller\n" for _ in range(6)))
    (root / "b.txt").write_text(f"{line}\n")
    (root / "c.txt").write_text(f"{line}\n")
    # 300 tokens = 1200 characters for the whole answer (root, stats, the tokens block and
    # each match's JSON): four matches fit.
    async with octo.Gateway(Config(max_tokens=300), roots=[root]) as gw:
        response = await gw.local_search_code(
            [{"pattern": "needle", "path": ".", "contextLines": 1}]
        )
        found = response.to_wire()["results"][0]
        data = found["data"]
        a, b, c = data["files"]
        shown = [m["lineNumber"] for m in a["matches"]]
        # As many matches as the whole answer leaves room for (the root's length counts).
        assert 2 <= len(shown) < 6 and shown == [1, 3, 5, 7, 9][: len(shown)]
        last = shown[-1]
        assert a["pagination"] == {"currentPage": 1, "hasMore": True, "matchesOnPage": len(shown)}
        assert a["matchCount"] == 6
        assert "matches" not in b and "matches" not in c
        assert b["pagination"]["matchesOnPage"] == 0
        assert data["tokens"]["truncated"] is True
        assert data["tokens"]["truncatedAtLine"] == last
        assert data["tokens"]["chars"] == len(json.dumps(data, separators=(",", ":")))
        assert data["tokens"]["estimatedTokens"] <= data["tokens"]["maxTokensPerRequest"]
        read = hinted_query(found, "The token budget (300 tokens) cut the matches in a.txt")
        assert read == {"path": str(root / "a.txt"), "startLine": last + 1, "endLine": 12}
        assert data["tokens"]["paginationHint"].endswith(json.dumps(read, separators=(",", ":")))
        assert hinted_query(found, "2 later file(s)") == {
            "pattern": "needle",
            "path": str(root / "b.txt"),
            "contextLines": 1,
        }
        rest = (await gw.call("localGetFileContent", [read])).to_wire()["results"][0]
        assert rest["data"]["content"].count("needle") == 6 - len(shown)


async def test_read_hints_carry_the_opt_ins_a_file_needs(tree: Tree, search: CallOne) -> None:
    tree({".config/.env": "TOKEN_NAME=needle\n"})
    found = await search(pattern="needle", path=".", hidden=True, includeSensitive=True)
    assert hinted_query(found, "Read around a hit") == {
        "path": found["data"]["root"] + "/.config/.env",
        "hidden": True,
        "includeSensitive": True,
        "matchString": "needle",
    }


async def test_validation_hints_mend_the_query(tree: Tree, search: CallOne) -> None:
    tree({"a.txt": "x\n"})
    bad = await search(pattern="x", path=".", contextLines=99, filesPerpage=3)
    assert "did you mean filesPerPage?" in bad["error"]["message"]
    mended = hinted_query(bad, "Valid form of this query: localSearchCode")
    assert mended == {"pattern": "x", "path": ".", "contextLines": 50, "filesPerPage": 3}
    assert (await search(**mended))["status"] == "success"


@pytest.mark.parametrize("max_tokens", [250, 400, 600, 1000])
async def test_a_search_answer_never_exceeds_its_token_budget(root: Path, max_tokens: int) -> None:
    import octo
    from octo.core.config import Config

    # Short lines: the JSON around each match costs more than its text.
    (root / "many.txt").write_text("".join(f"hit {i}\n" for i in range(200)))
    (root / "more.txt").write_text("hit\n" * 50)
    async with octo.Gateway(Config(max_tokens=max_tokens), roots=[root]) as gw:
        query = {"pattern": "hit", "path": ".", "matchesPerPage": 100, "contextLines": 1}
        response = await gw.local_search_code([query])
    data = response.to_wire()["results"][0]["data"]
    tokens = data["tokens"]
    assert tokens["truncated"] is True
    assert tokens["chars"] == len(json.dumps(data, separators=(",", ":")))
    assert tokens["estimatedTokens"] <= max_tokens


async def test_the_counting_pass_looks_at_each_found_file_once(
    tree: Tree, search: CallOne, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its size (maxFilesize) and its content key (the secret check) come from one lstat.
    tree({f"src/m{i}.py": "needle\n" for i in range(5)} | {"src/other.py": "x\n"})
    looked: list[bytes] = []
    real_stat = os.stat

    def stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if kwargs.get("dir_fd") is not None and isinstance(path, bytes):
            looked.append(path)
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    found = await search(pattern="needle", path="src", filesOnly=True)
    assert found["data"]["stats"]["filesWithMatches"] == 5
    assert sorted(looked) == [f"./m{i}.py".encode() for i in range(5)]
