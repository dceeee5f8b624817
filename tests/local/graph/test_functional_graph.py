"""localDependencyGraph over Elixir (alias/import/use/require -> the file declaring the
defmodule) and Haskell (import -> the module's path under the cabal or package.yaml source
folders): each fixture's dependencies, dependents and external modules are known."""

from __future__ import annotations

from typing import Any

from tests.local.conftest import Call
from tests.local.conftest import Tree

ELIXIR = {
    "mix.exs": "defmodule Acme.MixProject do\n  use Mix.Project\nend\n",
    "lib/acme/app.ex": (
        "defmodule Acme.App do\n  alias Acme.{Repo, Model.User}\n  import Acme.Text, only: [shout: 1]\n"
        "  use GenServer\n  require Logger\n  alias Jason.Encoder\nend\n"
    ),
    "lib/acme/repo.ex": "defmodule Acme.Repo do\n  alias Acme.App\nend\n",
    "lib/acme/model.ex": (
        "defmodule Acme.Model do\n  defmodule User do\n    defstruct [:name]\n  end\nend\n"
    ),
    "lib/acme/text.ex": "defmodule Acme.Text do\n  def shout(x), do: x\nend\n",
    "test/app_test.exs": "defmodule Acme.AppTest do\n  use ExUnit.Case\n  alias Acme.App\nend\n",
}
HASKELL = {
    "acme.cabal": (
        "cabal-version: 2.4\nname: acme\n\nlibrary\n  exposed-modules: Acme.Model\n"
        "  hs-source-dirs: lib\n\nexecutable acme\n  main-is: Main.hs\n  hs-source-dirs: app\n"
    ),
    "app/Main.hs": (
        "module Main (main) where\n\nimport qualified Acme.Model as M\nimport Acme.Util (shout)\n"
        "import Data.List (sort)\nimport qualified Data.Aeson as A\n\nmain :: IO ()\nmain = pure ()\n"
    ),
    "lib/Acme/Model.hs": "module Acme.Model where\n\nimport Acme.Util\n",
    "lib/Acme/Util.hs": "module Acme.Util (shout) where\n\nimport {-# SOURCE #-} Acme.Model\n\nshout = id\n",
    "lib/Acme/Orphan.hs": "module Acme.Orphan where\n",
}
STACK = {
    "package.yaml": "name: tool\nlibrary:\n  source-dirs:\n    - source\n",
    "source/Tool/Core.hs": "module Tool.Core where\nimport Tool.Parse\n",
    "source/Tool/Parse.hs": "module Tool.Parse where\n",
}


async def _one(call: Call, **query: Any) -> dict[str, Any]:
    return (await call("localDependencyGraph", query))[0]


def _files(answer: dict[str, Any]) -> list[str]:
    return [item["file"] for item in answer["data"]["items"]]


async def test_elixir_modules(call: Call, tree: Tree) -> None:
    tree(ELIXIR)
    app = await _one(call, operation="dependencies", file="lib/acme/app.ex")
    items = {i["file"]: i for i in app["data"]["items"]}
    assert set(items) == {
        "lib/acme/repo.ex",
        "lib/acme/model.ex",
        "lib/acme/text.ex",
        "GenServer",
        "Logger",
        "Jason.Encoder",
    }
    assert items["GenServer"]["standardLibrary"] is True
    assert "standardLibrary" not in items["Jason.Encoder"]
    assert items["lib/acme/text.ex"]["line"] == 3
    dependents = await _one(call, operation="dependents", file="lib/acme/app.ex")
    assert set(_files(dependents)) == {"lib/acme/repo.ex", "test/app_test.exs"}
    cycles = await _one(call, operation="cycles")
    assert [i["members"] for i in cycles["data"]["items"]] == [
        ["lib/acme/app.ex", "lib/acme/repo.ex"]
    ]


async def test_haskell_cabal_source_dirs(call: Call, tree: Tree) -> None:
    tree(HASKELL)
    main = await _one(call, operation="dependencies", file="app/Main.hs")
    items = {i["file"]: i for i in main["data"]["items"]}
    assert set(items) == {"lib/Acme/Model.hs", "lib/Acme/Util.hs", "Data.List", "Data.Aeson"}
    assert items["lib/Acme/Model.hs"]["line"] == 3
    assert items["Data.List"]["standardLibrary"] is True
    cycles = await _one(call, operation="cycles")
    assert [i["members"] for i in cycles["data"]["items"]] == [
        ["lib/Acme/Model.hs", "lib/Acme/Util.hs"]
    ]
    unreachable = await _one(call, operation="unreachable")
    assert _files(unreachable) == ["lib/Acme/Orphan.hs"]


async def test_haskell_package_yaml_source_dirs(call: Call, tree: Tree) -> None:
    tree(STACK)
    core = await _one(call, operation="dependencies", file="source/Tool/Core.hs")
    assert _files(core) == ["source/Tool/Parse.hs"]
