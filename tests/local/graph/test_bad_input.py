"""localDependencyGraph on bad input: each is a diagnostic or a clear error, never an
exception, a read outside the roots, nor a query past its deadline."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

import octo
from octo.core.config import Config
from tests.local.conftest import Call
from tests.local.conftest import Tree


async def _one(call: Call, **query: Any) -> dict[str, Any]:
    return (await call("localDependencyGraph", query))[0]


async def test_unreadable_files_are_diagnostics(call: Call, tree: Tree, tmp_path: Path) -> None:
    (tmp_path / "outside.py").write_text("SECRET = 1\n")
    root = tree(
        {
            "app/__init__.py": "",
            "app/main.py": "from . import util\nfrom .... import beyond\nimport app.binary\n",
            "app/util.py": "import app.latin\n",
            "app/binary.py": b"\x00\x01ELF import os\n",
            "app/latin.py": "# caf\xe9\nimport app.util\n".encode("latin-1"),
        }
    )
    os.symlink("..", root / "app" / "loop")
    os.symlink(tmp_path / "outside.py", root / "app" / "outside.py")
    answer = await _one(call, operation="dependencies", file="app/main.py")
    assert answer["status"] == "success"
    diagnostics = "\n".join(answer["data"]["diagnostics"])
    assert "app/binary.py: binary content" in diagnostics
    assert "app/latin.py: not UTF-8" in diagnostics
    assert "app/main.py:2: relative import above the top package" in diagnostics
    items = {i["file"]: i for i in answer["data"]["items"]}
    assert items["app/util.py"]["line"] == 1
    assert items["...."]["kinds"] == ["unresolved"]
    latin = await _one(call, operation="dependencies", file="app.latin")
    assert [i["file"] for i in latin["data"]["items"]] == ["app/util.py"]
    cycles = await _one(call, operation="cycles")
    assert cycles["data"]["items"][0]["members"] == ["app/latin.py", "app/util.py"]
    outside = await _one(call, operation="dependents", file="app/outside.py")
    assert outside["error"]["code"] == "NOT_FOUND"


async def test_a_root_outside_the_roots_is_refused(call: Call, tree: Tree, tmp_path: Path) -> None:
    tree({"a.py": ""})
    answer = await _one(call, operation="cycles", path=str(tmp_path))
    assert answer["error"]["code"] == "PATH_NOT_ALLOWED"


async def test_a_file_as_root_names_its_folder(call: Call, tree: Tree) -> None:
    root = tree({"pkg/a.py": "import pkg.b\n", "pkg/b.py": ""})
    answer = await _one(call, operation="cycles", path=str(root / "pkg" / "a.py"))
    assert answer["error"]["code"] == "INVALID_QUERY"
    assert '"file":"a.py"' in answer["hints"][0]


@pytest.mark.slow
async def test_a_large_root_answers_partial_then_whole(root: Path, tmp_path: Path) -> None:
    for folder in range(60):
        package = root / f"p{folder}"
        package.mkdir()
        (package / "__init__.py").write_text("")
        for index in range(100):
            (package / f"m{index}.py").write_text(f"from p{folder} import m{(index + 1) % 100}\n")
    # The build of 6,060 files measured once (its own cache, a deadline it cannot reach),
    # then a deadline of a quarter of it: the first answer is partial however loaded the
    # machine (a fixed deadline is all spent before the build starts when it is loaded
    # enough), and the build goes on for the next query.
    measuring = Config(env={"XDG_CACHE_HOME": str(tmp_path / "measuring")}, query_timeout=600)
    async with octo.Gateway(measuring, roots=[root]) as gateway:
        started = time.monotonic()
        whole = await gateway.call("localDependencyGraph", [{"operation": "cycles"}])
        build = time.monotonic() - started
    assert whole.to_wire()["results"][0]["data"]["files"] == 6060
    config = Config(env={"XDG_CACHE_HOME": str(tmp_path / "cache")}, query_timeout=build / 4)
    async with octo.Gateway(config, roots=[root]) as gateway:
        first = (await gateway.call("localDependencyGraph", [{"operation": "cycles"}])).to_wire()
        assert "data" in first["results"][0], first
        data = first["results"][0]["data"]
        assert data["partial"] is True and data["progress"]
        for _ in range(200):
            again = await gateway.call("localDependencyGraph", [{"operation": "cycles"}])
            data = again.to_wire()["results"][0]["data"]
            if not data.get("partial"):
                break
            await anyio.sleep(0.2)
        assert data["files"] == 6060
        assert data["totalItems"] == 60 and data["items"][0]["size"] == 100


async def test_a_file_name_that_is_not_utf8(call: Call, tree: Tree) -> None:
    root = tree({"pkg/__init__.py": "", "pkg/a.py": "from . import b\n", "pkg/b.py": ""})
    os.mkdir(os.fsencode(root / "pkg") + b"/caf\xe9")
    (Path(os.fsdecode(os.fsencode(root / "pkg") + b"/caf\xe9")) / "m.py").write_text(
        "import pkg.a\n"
    )
    answer = await _one(call, operation="dependents", file="pkg/a.py")
    assert answer["status"] == "success"
    assert [i["file"] for i in answer["data"]["items"]] == ["pkg/caf\ufffd/m.py"]


async def test_a_syntax_error_is_a_diagnostic(call: Call, tree: Tree) -> None:
    tree(
        {
            "lib/a.rb": "require_relative 'b'\ndef broken(\n  1 +\n",
            "lib/b.rb": "",
            "Broken.hs": "module Broken where\nimport Data.List\nmain = (((\n",
            "broken.ex": "defmodule Broken do\n  alias Other.Thing\n  def x( do\n",
            "Broken.cs": "using System;\nnamespace {{{ class\n",
            "composer.json": "{not json",
        }
    )
    answer = await _one(call, operation="dependencies", file="lib/a.rb")
    assert answer["status"] == "success"
    # What the parser recovered is kept: the require before the error.
    assert [i["file"] for i in answer["data"]["items"]] == ["lib/b.rb"]
    diagnostics = "\n".join(answer["data"]["diagnostics"])
    for name in ("lib/a.rb", "Broken.hs", "broken.ex", "Broken.cs"):
        assert f"{name}: syntax error at line" in diagnostics
    assert "composer.json: not JSON" in diagnostics
