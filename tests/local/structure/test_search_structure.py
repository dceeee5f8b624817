"""localSearchStructure: ast-grep patterns and rules over files read through octo's confined
reader, with captured meta-variables, paging, gates and redaction."""

from __future__ import annotations

import resource
from pathlib import Path
from typing import Any

import anyio
import pytest

import octo
from octo.core.config import Config
from octo.transports.processes import running
from tests.local.conftest import Call
from tests.local.conftest import Tree
from tests.security.planted import PLANTED

TOKEN = next(p.value for p in PLANTED if p.name == "github classic")

PYTHON = """import os


def load(path, mode="r"):
    return open(path, mode)


class Box:
    def size(self):
        return len(self.items)
"""
TYPESCRIPT = """function greet(name: string) {
  console.log("hi", name);
}
console.log(
  greet,
);
"""


@pytest.fixture
def project(tree: Tree) -> Path:
    return tree(
        {
            "src/app.py": PYTHON,
            "src/web/page.ts": TYPESCRIPT,
            "src/.cache/skip.py": "def hidden_one():\n    pass\n",
            "src/secrets.env": "x",
            "src/leak.py": f'def connect(token="{TOKEN}"):\n    return token\n',
            "build/gen.py": "def generated():\n    pass\n",
            ".gitignore": "build/\n",
        }
    )


async def _one(call: Call, **query: Any) -> dict[str, Any]:
    return (await call("localSearchStructure", query))[0]


def _where(result: dict[str, Any]) -> list[tuple[str, int, dict[str, str]]]:
    return [(m["path"], m["startLine"], m["captures"]) for m in result["data"]["matches"]]


async def test_python_functions_with_captures(call: Call, project: Path) -> None:
    result = await _one(
        call, pattern="def $NAME($$$ARGS): $$$BODY", language="python", path=str(project / "src")
    )
    assert result["status"] == "success", result
    assert _where(result) == [
        (
            "app.py",
            4,
            {"NAME": "load", "ARGS": 'path, mode="r"', "BODY": "return open(path, mode)"},
        ),
        ("app.py", 9, {"NAME": "size", "ARGS": "self", "BODY": "return len(self.items)"}),
        (
            "leak.py",
            1,
            {"NAME": "connect", "ARGS": 'token="[REDACTED:github-token]"', "BODY": "return token"},
        ),
    ]
    first = result["data"]["matches"][0]
    assert (first["endLine"], first["startColumn"]) == (5, 0)
    assert first["text"] == 'def load(path, mode="r"):\n    return open(path, mode)'
    assert TOKEN not in str(result)
    assert result["hints"] == [
        'Read around it: localGetFileContent {"path":"'
        + str(project / "src" / "app.py")
        + '","startLine":1,"endLine":10}'
    ]


async def test_typescript_calls_across_lines(call: Call, project: Path) -> None:
    result = await _one(call, pattern="console.log($$$ARGS)", language="typescript")
    assert _where(result) == [
        ("src/web/page.ts", 2, {"ARGS": '"hi", name'}),
        ("src/web/page.ts", 4, {"ARGS": "greet"}),
    ]


async def test_a_rule_as_json(call: Call, project: Path) -> None:
    rule = {"kind": "call", "inside": {"kind": "class_definition", "stopBy": "end"}}
    result = await _one(call, rule=rule, language="python", path="src/app.py")
    assert [(m["path"], m["text"]) for m in result["data"]["matches"]] == [
        ("app.py", "len(self.items)")
    ]


async def test_a_bad_rule_fails_alone(call: Call, project: Path) -> None:
    bad, good = await call(
        "localSearchStructure",
        {"rule": {"kindx": "call"}, "language": "python"},
        {"pattern": "open($$$A)", "language": "python"},
    )
    assert bad["error"]["code"] == "INVALID_QUERY"
    assert "kindx" in bad["error"]["message"]
    assert good["status"] == "success"
    both = await call("localSearchStructure", {"language": "python"})
    assert both[0]["error"]["code"] == "VALIDATION_ERROR"


async def test_paging_include_and_exclude(call: Call, project: Path) -> None:
    pattern = {"pattern": "def $F($$$A): $$$B", "language": "python"}
    second = await _one(call, **pattern, matchesPerPage=2, page=2)
    assert [m["captures"]["F"] for m in second["data"]["matches"]] == ["connect"]
    assert second["data"]["totalMatches"] == 3
    only = await _one(call, **pattern, include=["leak.py"])
    assert [m["captures"]["F"] for m in only["data"]["matches"]] == ["connect"]
    without = await _one(call, **pattern, exclude=["leak.py"])
    assert [m["captures"]["F"] for m in without["data"]["matches"]] == ["load", "size"]


async def test_hidden_ignored_and_sensitive_files_need_opt_ins(call: Call, project: Path) -> None:
    pattern = {"pattern": "def $F($$$A): $$$B", "language": "python"}
    default = await _one(call, **pattern)
    names = {m["captures"]["F"] for m in default["data"]["matches"]}
    assert names == {"load", "size", "connect"}
    wider = await _one(call, **pattern, hidden=True, noIgnore=True)
    assert {m["captures"]["F"] for m in wider["data"]["matches"]} == names | {
        "hidden_one",
        "generated",
    }
    refused = await _one(call, **pattern, path="src/.cache/skip.py")
    assert refused["error"]["code"] == "PATH_NOT_ALLOWED"
    assert '"hidden":true' in refused["hints"][0]
    env = await _one(call, pattern="$X", language="yaml", path="src/secrets.env")
    assert env["error"]["code"] == "PATH_NOT_ALLOWED"
    assert '"includeSensitive":true' in env["hints"][0]


async def test_a_fragment_pattern_is_a_clear_validation_error(call: Call, project: Path) -> None:
    # issue 38, edge 10: it was ast-grep's raw error with a cut Rust backtrace.
    bad, in_rule = await call(
        "localSearchStructure",
        {"pattern": "except Exception: pass", "language": "python"},
        {"rule": {"pattern": "except Exception: pass"}, "language": "python"},
    )
    for refused in (bad, in_rule):
        error = refused["error"]
        assert error["code"] == "VALIDATION_ERROR"
        assert "must be one complete piece of code" in error["message"]
        assert "backtrace" not in error["message"].lower()
        assert "ast_grep" not in error["message"]
    assert any("except Exception: pass" in hint and "try:" in hint for hint in bad["hints"])
    assert any('"kind"' in hint for hint in bad["hints"])


async def test_files_the_cli_does_not_read_are_matched_in_process(call: Call, tree: Tree) -> None:
    # A C header searched as C++, and a Python file named otherwise, with the CLI's files.
    tree(
        {
            "inc/box.h": "int size(int a) { return a; }\n",
            "inc/main.cpp": "int twice(int a) { return a; }\n",
            "tools/run": "def main():\n    pass\n",
            "tools/lib.py": "def helper():\n    pass\n",
        }
    )
    cpp = await _one(
        call, rule={"kind": "function_definition"}, language="cpp", include=["*.h", "*.cpp"]
    )
    assert [m["path"] for m in cpp["data"]["matches"]] == ["inc/box.h", "inc/main.cpp"]
    python = await _one(call, pattern="def $F(): pass", language="python", include=["run", "*.py"])
    assert [m["captures"]["F"] for m in python["data"]["matches"]] == ["helper", "main"]


@pytest.mark.slow
async def test_an_abandoned_search_leaves_no_parse_running(tree: Tree, root: Path) -> None:
    # issue 32: parsing in threads went on for 30 s after the answer at the deadline.
    body = "".join(
        f"def f{i}(a, b):\n    return [a + b for _ in range(a)]\n\n" for i in range(4000)
    )
    tree({f"big/m{n}.py": body for n in range(120)})
    config = Config(query_timeout=3.0)
    async with octo.Gateway(config, roots=[root]) as gateway:
        response = await gateway.call(
            "localSearchStructure",
            [{"pattern": "[$X for $Y in $Z]", "language": "python", "path": "big"}],
        )
        answer = response.to_wire()["results"][0]
        assert answer["status"] != "error", answer
        assert answer["data"]["partial"] is True
        assert running().get("ast-grep", 0) == 0
        before = resource.getrusage(resource.RUSAGE_SELF)
        await anyio.sleep(1.0)
        after = resource.getrusage(resource.RUSAGE_SELF)
    # No thread parses on unheard: the process stays idle after its answer.
    spent = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert spent < 0.3, f"{spent:.2f} s of CPU after the answer"
