"""localGetFileContent: modes, the token budget, and the safety rules."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import octo
from octo.core.config import Config
from octo.core.errors import CallError
from tests.local.conftest import Call
from tests.local.conftest import CallOne
from tests.local.conftest import Tree

NUMBERED = "".join(f"line {i:03d}\n" for i in range(1, 101))  # 100 lines of 9 characters


def hinted_query(envelope: dict[str, Any]) -> dict[str, Any]:
    hint = next(h for h in envelope["hints"] if "localGetFileContent {" in h)
    query: dict[str, Any] = json.loads(hint[hint.index("{") :])
    return query


async def read_with(root: Path, config: Config, **query: Any) -> dict[str, Any]:
    async with octo.Gateway(config, roots=[root]) as gw:
        response = await gw.call("localGetFileContent", [query])
    result: dict[str, Any] = response.to_wire()["results"][0]
    return result


async def test_default_reads_a_small_file_whole(tree: Tree, read: CallOne) -> None:
    tree({"src/a.py": "import os\n\nprint(os.sep)\n"})
    found = await read(path="src/a.py")
    data = found["data"]
    assert data["content"] == "import os\n\nprint(os.sep)\n"
    assert (data["path"], data["size"], data["totalLines"]) == ("src/a.py", 25, 3)
    assert (data["startLine"], data["endLine"]) == (1, 3)
    sent = len(json.dumps(data, separators=(",", ":"), ensure_ascii=False))
    assert data["tokens"] == {
        "chars": sent,
        "estimatedTokens": -(-sent // 4),
        "maxTokensPerRequest": 5000,
        "truncated": False,
        "requiresPagination": False,
    }
    assert found["hints"] == []


async def test_absolute_and_file_uri_paths(tree: Tree, read: CallOne) -> None:
    root = tree({"a.txt": "x\n"})
    assert (await read(path=str(root / "a.txt")))["data"]["content"] == "x\n"
    assert (await read(path=(root / "a.txt").as_uri()))["data"]["content"] == "x\n"


async def test_default_read_is_cut_at_the_budget_and_continues_exactly(
    tree: Tree, config: Config
) -> None:
    root = tree({"big.txt": NUMBERED})
    small = Config(max_tokens=50)  # 200 characters: 22 lines of 9
    first = await read_with(root, small, path="big.txt")
    data = first["data"]
    assert (data["startLine"], data["endLine"]) == (1, 22)
    assert data["tokens"]["truncated"] is True
    assert data["tokens"]["truncatedAtLine"] == 22
    assert data["tokens"]["requiresPagination"] is True
    assert data["tokens"]["paginationHint"] == (
        "More content: continue with startLine=23, endLine=100"
    )
    assert hinted_query(first) == {"path": "big.txt", "startLine": 23, "endLine": 100}
    pieces = [data["content"]]
    query = hinted_query(first)
    while True:
        page = await read_with(root, small, **query)
        pieces.append(page["data"]["content"])
        if not page["data"]["tokens"]["requiresPagination"]:
            break
        query = hinted_query(page)
    assert "".join(pieces) == NUMBERED


async def test_one_line_over_the_budget_continues_by_characters(tree: Tree) -> None:
    text = "x" * 500 + "\nend\n"
    root = tree({"min.js": text})
    first = await read_with(root, Config(max_tokens=50), path="min.js")
    assert first["data"]["content"] == "x" * 200
    assert first["data"]["tokens"]["truncated"] is True
    follow = hinted_query(first)
    assert follow == {"path": "min.js", "charOffset": 200, "charLength": 200}
    second = await read_with(root, Config(max_tokens=50), **follow)
    assert second["data"]["content"] == "x" * 200


async def test_line_range(tree: Tree, read: CallOne) -> None:
    root = tree({"f.txt": NUMBERED})
    found = await read(path="f.txt", startLine=10, endLine=12)
    assert found["data"]["content"] == "line 010\nline 011\nline 012\n"
    assert (found["data"]["startLine"], found["data"]["endLine"]) == (10, 12)
    # The range fit, but the file goes on (spec 000 section 8): the next range of the same size.
    tokens = found["data"]["tokens"]
    assert (tokens["truncated"], tokens["requiresPagination"]) == (False, True)
    assert tokens["paginationHint"].endswith("startLine=13, endLine=15")
    assert found["hints"] == [
        'Next lines: localGetFileContent {"path":"f.txt","startLine":13,"endLine":15}'
    ]
    clipped = await read(path="f.txt", startLine=99, endLine=500)
    assert clipped["data"]["content"] == "line 099\nline 100\n"
    assert clipped["data"]["tokens"]["requiresPagination"] is False
    folder = json.dumps({"path": str(root)}, separators=(",", ":"))
    assert clipped["hints"] == [
        f"That is the end of the file (100 lines); its folder: localViewStructure {folder}"
    ]
    past = await read(path="f.txt", startLine=101, endLine=105)
    assert past["error"]["code"] == "INVALID_QUERY"
    assert "100 lines" in past["error"]["message"]


async def test_line_range_over_the_budget(tree: Tree) -> None:
    root = tree({"f.txt": NUMBERED})
    found = await read_with(root, Config(max_tokens=25), path="f.txt", startLine=5, endLine=60)
    assert (found["data"]["startLine"], found["data"]["endLine"]) == (5, 15)
    assert found["data"]["tokens"]["truncatedAtLine"] == 15
    assert hinted_query(found) == {"path": "f.txt", "startLine": 16, "endLine": 60}


async def test_match_string_literal_case_insensitive_with_context(
    tree: Tree, read: CallOne
) -> None:
    lines = ["a", "b", "def Load():", "c", "d", "e", "f", "g", "load(1)", "h"]
    root = tree({"f.py": "\n".join(lines) + "\n"})
    found = await read(path="f.py", matchString="load(", matchStringContextLines=2)
    data = found["data"]
    assert data["matchCount"] == 2
    # The matched regions with their line markers, as githubGetFileContent gives them.
    assert data["content"] == (
        "--- lines 1-5 ---\na\nb\ndef Load():\nc\nd\n--- lines 7-10 ---\nf\ng\nload(1)\nh\n"
    )
    # Every line once: the matched lines are named by number, not shown again.
    assert data["matchedLines"] == [3, 9]
    assert "matches" not in data
    # Next: the code around the first match, and the text in the folder's other files.
    assert found["hints"] == [
        'Read the code around the first match: localGetFileContent {"path":"f.py","startLine":1,"endLine":10}',
        "Find it in the other files of the folder: localSearchCode "
        + json.dumps(
            {"pattern": "load(", "path": str(root), "fixedString": True}, separators=(",", ":")
        ),
    ]
    sensitive = await read(path="f.py", matchString="Load", matchStringCaseSensitive=True)
    assert sensitive["data"]["matchedLines"] == [3]
    regex = await read(path="f.py", matchString=r"^\w+\(\d\)", matchStringIsRegex=True)
    assert regex["data"]["matchedLines"] == [9]


async def test_match_string_default_context_is_five_and_overlaps_merge(
    tree: Tree, read: CallOne
) -> None:
    tree({"f.txt": NUMBERED})
    found = await read(path="f.txt", matchString="line 050")
    assert found["data"]["content"].startswith("--- lines 45-55 ---\nline 045\n")
    close = await read(path="f.txt", matchString="line 01[02]", matchStringIsRegex=True)
    assert close["data"]["matchedLines"] == [10, 12]
    # Line 12 lies inside line 10's context: one region.
    assert close["data"]["content"].startswith("--- lines 5-15 ---\n")


async def test_match_string_matches_line_by_line(tree: Tree, read: CallOne) -> None:
    tree({"f.txt": "foo\r\nbar end\r\n\nfoo  bar\nlast"})
    # A regex never spans lines; "$" ends a line before CRLF; an empty match counts its line.
    across = await read(path="f.txt", matchString=r"foo\s+bar", matchStringIsRegex=True)
    assert across["data"]["matchedLines"] == [4]
    ends = await read(path="f.txt", matchString="end$", matchStringIsRegex=True)
    assert ends["data"]["matchedLines"] == [2]
    every = await read(path="f.txt", matchString="^", matchStringIsRegex=True)
    assert every["data"]["matchCount"] == 5
    bad = await read(path="f.txt", matchString="(?<=a)b", matchStringIsRegex=True)
    assert bad["error"]["code"] == "INVALID_QUERY"
    assert any("matchStringIsRegex: false" in hint for hint in bad["hints"])


async def test_match_string_without_matches_is_empty_with_hints(tree: Tree, read: CallOne) -> None:
    tree({"f.txt": "alpha\n"})
    found = await read(path="f.txt", matchString="beta(", matchStringCaseSensitive=True)
    assert found["status"] == "empty"
    assert found["data"]["matchCount"] == 0
    hints = found["hints"]
    assert any("matchStringCaseSensitive" in h for h in hints)
    assert any("matchStringIsRegex: true" in h for h in hints)
    assert any(h.startswith("Search more files: localSearchCode") for h in hints)


async def test_match_string_results_are_cut_at_the_budget(tree: Tree) -> None:
    root = tree({"f.txt": NUMBERED})
    found = await read_with(
        root, Config(max_tokens=40), path="f.txt", matchString="0", matchStringContextLines=1
    )
    data = found["data"]
    assert data["matchCount"] == 100
    assert 0 < len(data["matchedLines"]) < 100
    assert data["tokens"]["truncated"] is True
    last = data["tokens"]["truncatedAtLine"]
    assert hinted_query(found) == {"path": "f.txt", "startLine": last + 1, "endLine": 100}


async def test_char_paging_walks_the_whole_file(tree: Tree, read: CallOne) -> None:
    tree({"f.txt": NUMBERED})
    pieces = []
    query: dict[str, Any] = {"path": "f.txt", "charLength": 250}
    while True:
        page = await read(**query)
        data = page["data"]
        pieces.append(data["content"])
        assert data["pagination"]["totalChars"] == len(NUMBERED)
        if not data["pagination"]["hasMore"]:
            assert "nextCharOffset" not in data["pagination"]
            break
        assert data["pagination"]["nextCharOffset"] == data["pagination"]["charOffset"] + 250
        query = hinted_query(page)
    assert "".join(pieces) == NUMBERED
    offset_only = await read(path="f.txt", charOffset=891)
    assert offset_only["data"]["content"] == "line 100\n"
    assert (offset_only["data"]["startLine"], offset_only["data"]["endLine"]) == (100, 100)
    past = await read(path="f.txt", charOffset=900)
    assert past["error"]["code"] == "INVALID_QUERY"


async def test_full_content_ignores_the_budget_up_to_300_kb(tree: Tree) -> None:
    root = tree({"f.txt": NUMBERED, "huge.txt": "y" * 80 + "\n" * 4000})
    whole = await read_with(root, Config(max_tokens=10), path="f.txt", fullContent=True)
    assert whole["data"]["content"] == NUMBERED
    assert whole["data"]["tokens"]["truncated"] is False
    (root / "huge.txt").write_text("z" * (300 * 1024 + 1))
    refused = await read_with(root, Config(), path="huge.txt", fullContent=True)
    assert refused["error"]["code"] == "FILE_TOO_LARGE"
    assert any("charOffset" in h for h in refused["hints"])


async def test_files_over_the_size_limit_are_too_large(tree: Tree) -> None:
    root = tree({"big.log": "x" * 2048})
    found = await read_with(root, Config(rg_max_filesize="1K"), path="big.log")
    assert found["error"]["code"] == "FILE_TOO_LARGE"
    assert "1024 bytes" in found["error"]["message"]


async def test_binary_files_are_refused(tree: Tree, read: CallOne) -> None:
    tree({"logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"})
    found = await read(path="logo.png")
    assert found["error"]["code"] == "INVALID_QUERY"
    assert "binary" in found["error"]["message"]


async def test_directories_and_missing_files(tree: Tree, read: CallOne) -> None:
    tree({"src/a.py": "x\n"})
    directory = await read(path="src")
    assert directory["error"]["code"] == "INVALID_QUERY"
    assert any("localViewStructure" in h for h in directory["hints"])
    missing = await read(path="src/deep/nope.py")
    assert missing["error"]["code"] == "NOT_FOUND"
    find = next(h for h in missing["hints"] if h.startswith("Find it"))
    assert json.loads(find[find.index("{") :])["iname"] == "*nope.py*"
    assert json.loads(find[find.index("{") :])["path"].endswith("src")


async def test_paths_outside_the_roots_and_escaping_symlinks(
    tree: Tree, read: CallOne, tmp_path: Path
) -> None:
    root = tree({"a.txt": "x\n"})
    (tmp_path / "outside.txt").write_text("secret\n")
    (root / "escape.txt").symlink_to(tmp_path / "outside.txt")
    for path in ("../outside.txt", str(tmp_path / "outside.txt"), "escape.txt", "/etc/hostname"):
        found = await read(path=path)
        assert found["error"]["code"] == "PATH_NOT_ALLOWED", path
        assert any("Allowed roots" in h for h in found["hints"])


async def test_sensitive_files_need_opt_in_even_through_a_symlink(
    tree: Tree, read: CallOne
) -> None:
    root = tree({"config/prod.env": "DB_PASSWORD=correcthorsebattery\nPORT=8080\n"})
    (root / "settings.txt").symlink_to(root / "config" / "prod.env")
    for path in ("config/prod.env", "settings.txt"):
        refused = await read(path=path)
        assert refused["error"]["code"] == "PATH_NOT_ALLOWED", path
        assert refused["hints"] == [
            "To use it anyway (secrets stay redacted): localGetFileContent "
            f'{{"path":"{path}","includeSensitive":true}}'
        ]
    opted = await read(path="config/prod.env", includeSensitive=True)
    assert opted["data"]["content"] == "DB_PASSWORD=[REDACTED:secret]\nPORT=8080\n"


async def test_hidden_files_need_opt_in(tree: Tree, read: CallOne) -> None:
    tree({".github/workflows/ci.yml": "on: push\n", ".env": "A=1\n"})
    refused = await read(path=".github/workflows/ci.yml", startLine=1, endLine=5)
    assert refused["error"]["code"] == "PATH_NOT_ALLOWED"
    assert refused["hints"] == [
        "To use it anyway: localGetFileContent "
        '{"path":".github/workflows/ci.yml","startLine":1,"endLine":5,"hidden":true}'
    ]
    # A virtual environment's files too (issue 14: a .venv path was refused without the call).
    tree({".venv/lib/python3.11/site-packages/httpx/_api.py": "def get(url):\n    pass\n"})
    venv = ".venv/lib/python3.11/site-packages/httpx/_api.py"
    in_venv = await read(path=venv, matchString="def get")
    assert in_venv["hints"] == [
        "To use it anyway: localGetFileContent "
        f'{{"path":"{venv}","matchString":"def get","hidden":true}}'
    ]
    assert (await read(path=venv, matchString="def get", hidden=True))["status"] == "success"
    allowed = await read(path=".github/workflows/ci.yml", hidden=True)
    assert allowed["data"]["content"] == "on: push\n"
    env_hidden_only = await read(path=".env", hidden=True)
    assert env_hidden_only["error"]["code"] == "PATH_NOT_ALLOWED"
    neither = await read(path=".env")
    assert neither["hints"] == [
        "To use it anyway (secrets stay redacted): localGetFileContent "
        '{"path":".env","includeSensitive":true,"hidden":true}'
    ]
    both = await read(path=".env", hidden=True, includeSensitive=True)
    assert both["data"]["content"] == "A=1\n"


async def test_secrets_are_redacted_and_line_numbers_kept(tree: Tree, read: CallOne) -> None:
    key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----"
    tree(
        {
            "deploy.py": f'KEY = """{key}"""\nAPI_KEY = "abcdef123456"\nafter = 1\n',
            "id_ed25519": key + "\n",
        }
    )
    found = await read(path="deploy.py")
    content = found["data"]["content"]
    assert "b3BlbnNzaC1rZXktdjEAAAAA" not in content
    assert 'API_KEY = "[REDACTED:secret]"' in content
    assert found["data"]["totalLines"] == 6
    after = await read(path="deploy.py", startLine=6, endLine=6)
    assert after["data"]["content"] == "after = 1\n"
    keyfile = await read(path="id_ed25519", includeSensitive=True)
    assert keyfile["data"]["content"] == (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + "[REDACTED:private-key]\n" * 2
        + "-----END OPENSSH PRIVATE KEY-----\n"
    )


async def test_answers_are_cached_per_file_version(tree: Tree, read: CallOne) -> None:
    root = tree({"f.txt": "one\n"})
    first = await read(path="f.txt")
    assert "cached" not in first
    again = await read(path="f.txt", startLine=1, endLine=1)
    assert again["cached"] is True
    (root / "f.txt").write_text("two lines\nnow\n")
    stat = (root / "f.txt").stat()
    os.utime(root / "f.txt", ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    changed = await read(path="f.txt")
    assert changed["data"]["content"] == "two lines\nnow\n"
    assert "cached" not in changed


async def test_bulk_with_one_invalid_query(tree: Tree, call: Call) -> None:
    tree({"a.txt": NUMBERED})
    results = await call(
        "localGetFileContent",
        {"path": "a.txt", "startLine": 1, "endLine": 2},
        {"path": "a.txt", "matchString": "line 003"},
        {"path": "a.txt", "startLine": 5},
        {"path": "a.txt", "charOffset": 9, "charLength": 9},
        {"path": "a.txt", "fullContent": True, "reasoning": "small file"},
    )
    assert [r["status"] for r in results] == ["success", "success", "error", "success", "success"]
    assert results[2]["error"]["code"] == "VALIDATION_ERROR"
    assert results[3]["data"]["content"] == "line 002\n"
    assert results[4]["reasoning"] == "small file"


async def test_more_than_five_queries_is_a_call_error(tree: Tree, call: Call) -> None:
    tree({"a.txt": "x\n"})
    with pytest.raises(CallError, match="1-5 queries"):
        await call("localGetFileContent", *({"path": "a.txt"} for _ in range(6)))


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ({"path": None}, ["path"]),
        ({"path": ""}, ["path"]),
        ({"startLine": 5}, ["startLine", "endLine"]),
        ({"endLine": 5}, ["startLine", "endLine"]),
        ({"startLine": 9, "endLine": 3}, ["startLine", "endLine"]),
        ({"startLine": 0, "endLine": 3}, ["startLine"]),
        ({"fullContent": True, "startLine": 1, "endLine": 2}, ["fullContent", "startLine"]),
        ({"fullContent": True, "matchString": "x"}, ["fullContent", "matchString"]),
        ({"matchString": "x", "startLine": 1, "endLine": 2}, ["matchString", "startLine"]),
        ({"charLength": 10, "startLine": 1, "endLine": 2}, ["charOffset", "startLine"]),
        ({"charOffset": 5, "matchString": "x"}, ["charOffset", "matchString"]),
        ({"charOffset": 5, "fullContent": True}, ["charOffset", "fullContent"]),
        ({"charOffset": -1}, ["charOffset"]),
        ({"charLength": 0}, ["charLength"]),
        ({"charLength": 10001}, ["charLength"]),
        ({"matchString": ""}, ["matchString"]),
        ({"matchString": "x", "matchStringContextLines": 0}, ["matchStringContextLines"]),
        ({"matchString": "x", "matchStringContextLines": 51}, ["matchStringContextLines"]),
        ({"matchStringContextLines": 3}, ["matchStringContextLines", "matchString"]),
        ({"matchStringIsRegex": True}, ["matchStringIsRegex", "matchString"]),
        ({"matchStringCaseSensitive": True}, ["matchStringCaseSensitive", "matchString"]),
        ({"lines": "1-5"}, ["lines"]),
    ],
)
async def test_validation_errors_name_the_fields(
    tree: Tree, call: Call, query: dict[str, Any], named: list[str]
) -> None:
    tree({"a.txt": "x\n"})
    bad, good = await call("localGetFileContent", {"path": "a.txt", **query}, {"path": "a.txt"})
    assert bad["status"] == "error"
    assert bad["error"]["code"] == "VALIDATION_ERROR"
    for field in named:
        assert field in bad["error"]["message"]
    assert good["status"] == "success"


async def test_special_files_are_refused(tree: Tree, read: CallOne) -> None:
    root = tree({"a.txt": "x\n"})
    os.mkfifo(root / "pipe")
    found = await read(path="pipe")
    assert found["error"]["code"] == "INVALID_QUERY"
    assert "regular file" in found["error"]["message"]


async def test_a_root_that_does_not_exist_is_named_as_the_fault(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    found = await read_with(gone, Config(), path="src/a.py")
    assert found["error"] == {
        "code": "NOT_FOUND",
        "message": f"The allowed root {gone} does not exist, so 'src/a.py' does not either",
    }
    assert found["hints"] == ["Fix the roots (OCTO_ROOTS, --root, or the MCP client's roots)."]


async def test_answers_say_when_modified_which_language_and_how_many_lines(
    tree: Tree, call: Call
) -> None:
    root = tree({"src/a.tsx": NUMBERED, "bin/tool": "#!/usr/bin/env -S python3 -u\nprint(1)\n"})
    os.utime(root / "src/a.tsx", (1_700_000_000, 1_700_000_000))
    ranged, whole, matched, chars, script = await call(
        "localGetFileContent",
        {"path": "src/a.tsx", "startLine": 10, "endLine": 19},
        {"path": "src/a.tsx", "fullContent": True},
        {"path": "src/a.tsx", "matchString": "line 050", "matchStringContextLines": 2},
        {"path": "src/a.tsx", "charOffset": 0, "charLength": 27},
        {"path": "bin/tool"},
    )
    assert ranged["data"]["modified"] == "2023-11-14T22:13:20Z"
    assert ranged["data"]["language"] == "typescriptreact"
    # How many lines came back is said once: by startLine and endLine, or by the
    # '--- lines a-b ---' headers of matchString's regions (no returnedLines beside them).
    lines = [(r["data"]["startLine"], r["data"]["endLine"]) for r in (ranged, whole, chars, script)]
    assert lines == [(10, 19), (1, 100), (1, 3), (1, 2)]
    assert matched["data"]["content"].startswith("--- lines 48-52 ---")
    assert not any("returnedLines" in r["data"] for r in (ranged, whole, matched, chars, script))
    assert script["data"]["language"] == "python"
