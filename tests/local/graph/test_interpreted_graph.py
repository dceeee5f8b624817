"""localDependencyGraph over Ruby (require_relative, require against lib folders), PHP
(require/include paths, use through composer.json PSR-4 or namespace declarations), Lua
(require of dotted names) and Bash (source and . with literal paths): each fixture's
dependencies, dependents, externals and unresolved paths are known."""

from __future__ import annotations

import json
from typing import Any

from tests.local.conftest import Call
from tests.local.conftest import Tree

RUBY = {
    "bin/app": "#!/usr/bin/env ruby\n",
    "exe/run.rb": "#!/usr/bin/env ruby\nrequire 'acme'\nrequire 'json'\n",
    "lib/acme.rb": "require 'acme/model'\nrequire_relative 'acme/util'\n",
    "lib/acme/model.rb": "require_relative './util'\nmodule Acme; class Model; end; end\n",
    "lib/acme/util.rb": "require 'acme'\nrequire \"acme/#{name}\"\n",
    "gems/extra/lib/extra.rb": "require 'extra/deep'\n",
    "gems/extra/lib/extra/deep.rb": "require_relative '../missing'\n",
}
PHP = {
    "composer.json": json.dumps({"autoload": {"psr-4": {"App\\": "src/"}}}),
    "public/index.php": (
        "<?php\nrequire_once __DIR__ . '/../vendor/autoload.php';\n"
        "require __DIR__ . '/../config/app.php';\n"
        "use App\\Http\\Kernel;\nuse Monolog\\Logger;\n"
    ),
    "config/app.php": "<?php\nreturn ['name' => 'acme'];\n",
    "src/Http/Kernel.php": (
        "<?php\nnamespace App\\Http;\n\nuse App\\Model\\{User, Order as Purchase};\n"
        "use Legacy\\Helpers;\n\nclass Kernel {}\n"
    ),
    "src/Model/User.php": "<?php\nnamespace App\\Model;\nuse App\\Http\\Kernel;\nclass User {}\n",
    "src/Model/Order.php": "<?php\nnamespace App\\Model;\nclass Order {}\n",
    "legacy/helpers.php": "<?php\nnamespace Legacy\\Helpers;\nfunction shout() {}\n",
}
LUA = {
    "main.lua": 'local util = require("acme.util")\nlocal model = require "acme"\nlocal json = require("cjson")\n',
    "acme/init.lua": "return { model = require('acme.model') }\n",
    "acme/model.lua": "local util = require('acme.util')\nreturn {}\n",
    "acme/util.lua": "return {}\n",
    "lua/plugin/setup.lua": "return require('plugin.options')\n",
    "lua/plugin/options.lua": "return {}\n",
}
BASH = {
    "run.sh": '#!/bin/bash\nsource ./lib/common.sh\n. "lib/log.sh"\n. "$HOME/.profile"\nsource missing.sh\n',
    "lib/common.sh": "source log.sh\n",
    "lib/log.sh": 'log() { echo "$@"; }\n',
    "scripts/deploy.bash": "#!/usr/bin/env bash\nsource ../lib/common.sh\n",
}


async def _one(call: Call, **query: Any) -> dict[str, Any]:
    return (await call("localDependencyGraph", query))[0]


def _files(answer: dict[str, Any]) -> list[str]:
    return [item["file"] for item in answer["data"]["items"]]


async def test_ruby_requires(call: Call, tree: Tree) -> None:
    tree(RUBY)
    run = await _one(call, operation="dependencies", file="exe/run.rb")
    items = {i["file"]: i for i in run["data"]["items"]}
    assert set(items) == {"lib/acme.rb", "json"}
    assert items["json"]["package"] == "json"
    acme = await _one(call, operation="dependencies", file="lib/acme.rb")
    assert _files(acme) == ["lib/acme/model.rb", "lib/acme/util.rb"]
    util = await _one(call, operation="dependents", file="lib/acme/util.rb", depth=2)
    assert [(i["file"], i["distance"]) for i in util["data"]["items"]] == [
        ("lib/acme.rb", 1),
        ("lib/acme/model.rb", 1),
        ("exe/run.rb", 2),
    ]
    extra = await _one(call, operation="dependencies", file="gems/extra/lib/extra.rb")
    assert _files(extra) == ["gems/extra/lib/extra/deep.rb"]
    cycles = await _one(call, operation="cycles")
    assert cycles["data"]["items"][0]["members"] == [
        "lib/acme.rb",
        "lib/acme/model.rb",
        "lib/acme/util.rb",
    ]
    diagnostics = cycles["data"]["diagnostics"]
    assert "gems/extra/lib/extra/deep.rb:1: '../missing' not found" in diagnostics
    unreachable = await _one(call, operation="unreachable")
    assert _files(unreachable) == ["gems/extra/lib/extra.rb", "gems/extra/lib/extra/deep.rb"]


async def test_php_paths_and_psr4(call: Call, tree: Tree) -> None:
    tree(PHP)
    index = await _one(call, operation="dependencies", file="public/index.php")
    items = {i["file"]: i for i in index["data"]["items"]}
    assert set(items) == {
        "__DIR__/../vendor/autoload.php",
        "config/app.php",
        "src/Http/Kernel.php",
        "Monolog",
    }
    assert items["__DIR__/../vendor/autoload.php"]["kinds"] == ["unresolved"]
    assert items["Monolog"]["package"] == "Monolog"
    kernel = await _one(call, operation="dependencies", file="src/Http/Kernel.php")
    assert _files(kernel) == ["src/Model/User.php", "src/Model/Order.php", "legacy/helpers.php"]
    cycles = await _one(call, operation="cycles")
    assert [i["members"] for i in cycles["data"]["items"]] == [
        ["src/Http/Kernel.php", "src/Model/User.php"]
    ]
    order = await _one(call, operation="dependents", file="src/Model/Order.php", depth=2)
    assert [(i["file"], i["distance"]) for i in order["data"]["items"]] == [
        ("src/Http/Kernel.php", 1),
        ("public/index.php", 2),
        ("src/Model/User.php", 2),
    ]


async def test_lua_requires(call: Call, tree: Tree) -> None:
    tree(LUA)
    main = await _one(call, operation="dependencies", file="main.lua")
    items = {i["file"]: i for i in main["data"]["items"]}
    assert set(items) == {"acme/util.lua", "acme/init.lua", "cjson"}
    assert items["acme/init.lua"]["line"] == 2
    setup = await _one(call, operation="dependencies", file="lua/plugin/setup.lua")
    assert _files(setup) == ["lua/plugin/options.lua"]
    util = await _one(call, operation="dependents", file="acme/util.lua")
    assert set(_files(util)) == {"main.lua", "acme/model.lua"}


async def test_bash_sources(call: Call, tree: Tree) -> None:
    tree(BASH)
    run = await _one(call, operation="dependencies", file="run.sh")
    items = {i["file"]: i for i in run["data"]["items"]}
    # "$HOME/.profile" is built at run time: not followed.
    assert set(items) == {"lib/common.sh", "lib/log.sh", "missing.sh"}
    assert items["missing.sh"]["kinds"] == ["unresolved"]
    log = await _one(call, operation="dependents", file="lib/log.sh")
    assert set(_files(log)) == {"run.sh", "lib/common.sh"}
    deploy = await _one(call, operation="dependencies", file="scripts/deploy.bash")
    assert _files(deploy) == ["lib/common.sh"]
    unreachable = await _one(call, operation="unreachable")
    assert _files(unreachable) == []
    assert "run.sh:5: 'missing.sh' not found" in unreachable["data"]["diagnostics"]
