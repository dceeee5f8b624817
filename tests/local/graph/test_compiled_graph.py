"""localDependencyGraph over Go (go.mod), Rust (the mod tree, crate/super/self paths),
Java, Kotlin and Scala (package -> files), C# (namespace -> files), Swift (module -> its
folder's files) and C (#include against the file's folder and compile_commands.json's
include folders): each fixture's dependencies, cycles and unreachable files are known."""

from __future__ import annotations

import json
from typing import Any

from tests.local.conftest import Call
from tests.local.conftest import Tree

GO = {
    "go.mod": "module example.com/app\n\ngo 1.22\n",
    "cmd/app/main.go": (
        'package main\n\nimport (\n\t"fmt"\n\t"example.com/app/internal/store"\n'
        '\t"github.com/pkg/errors/wrap"\n)\n\nfunc main() { fmt.Println(store.X, errors.New) }\n'
    ),
    "internal/store/store.go": 'package store\n\nimport "example.com/app/internal/model"\n\nvar X = model.Y\n',
    "internal/store/cache.go": "package store\n\nvar cache = 1\n",
    "internal/model/model.go": 'package model\n\nimport "example.com/app/internal/store"\n\nvar Y = 1\n',
    "internal/model/model_test.go": 'package model\n\nimport "testing"\n',
    "unused/dead.go": "package unused\n",
}
RUST = {
    "Cargo.toml": '[package]\nname = "app"\n',
    "src/main.rs": (
        "mod config;\nmod net;\nuse crate::config::Settings;\nuse std::io;\n"
        "use serde::Deserialize;\n\nfn main() {}\n"
    ),
    "src/config.rs": "use super::net::{client::Client, self};\npub struct Settings;\n",
    "src/net/mod.rs": "pub mod client;\n",
    "src/net/client.rs": "use crate::config;\npub struct Client;\n",
    "src/orphan.rs": "pub fn unused() {}\n",
    "util/Cargo.toml": '[package]\nname = "app-util"\n',
    "util/src/lib.rs": "pub mod text;\n",
    "util/src/text.rs": "pub fn shout() {}\n",
    "src/bin/tool.rs": "use app_util::text::shout;\nfn main() { shout() }\n",
}
JVM = {
    "src/main/java/com/acme/App.java": (
        "package com.acme;\n\nimport com.acme.util.Strings;\nimport static com.acme.util.Strings.trim;\n"
        "import com.acme.model.*;\nimport java.util.List;\n\n"
        "class App { public static void main(String[] args) {} }\n"
    ),
    "src/main/java/com/acme/util/Strings.java": (
        "package com.acme.util;\n\nimport com.acme.App;\n\nclass Strings {}\n"
    ),
    "src/main/java/com/acme/model/User.java": "package com.acme.model;\nclass User {}\n",
    "src/main/java/com/acme/model/Order.java": "package com.acme.model;\nclass Order {}\n",
    "src/main/kotlin/com/acme/report/Report.kt": (
        "package com.acme.report\n\nimport com.acme.model.User\nimport com.acme.text.shout\n\n"
        "fun render(u: User) = shout(u)\n"
    ),
    "src/main/kotlin/com/acme/text/Shouting.kt": (
        "package com.acme.text\n\nfun shout(value: Any) = value.toString().uppercase()\n"
    ),
}
SCALA = {
    "src/main/scala/com/acme/Main.scala": (
        "package com.acme\n\nimport com.acme.util.Strings\nimport com.acme.model._\n"
        "import com.acme.text.{Shout, Whisper => Quiet}\nimport scala.collection.mutable\n"
        "import cats.effect.IO\n\nobject Main { def main(args: Array[String]): Unit = () }\n"
    ),
    "src/main/scala/com/acme/util/Strings.scala": (
        "package com.acme\npackage util\n\nimport com.acme.Main\n\nobject Strings\n"
    ),
    "src/main/scala/com/acme/model/User.scala": "package com.acme.model\ncase class User()\n",
    "src/main/scala/com/acme/model/Order.scala": "package com.acme.model\ncase class Order()\n",
    "src/main/scala/com/acme/text/Shout.scala": "package com.acme.text\nobject Shout\n",
    "src/main/scala/com/acme/text/Whisper.scala": "package com.acme.text\nobject Whisper\n",
    "src/main/java/com/acme/legacy/Old.java": (
        "package com.acme.legacy;\n\nimport com.acme.model.User;\n\nclass Old {}\n"
    ),
}
CSHARP = {
    "App/Program.cs": (
        "using System;\nusing Acme.Models;\nusing static Acme.Util.Strings;\n"
        "using Json = Newtonsoft.Json.JsonConvert;\n\nnamespace Acme.App;\n\n"
        "class Program { static void Main(string[] args) {} }\n"
    ),
    "Models/User.cs": "namespace Acme.Models\n{\n    using Acme.Util;\n    class User {}\n}\n",
    "Models/Order.cs": "namespace Acme.Models { class Order {} }\n",
    "Util/Strings.cs": "using Acme.Models;\n\nnamespace Acme.Util;\n\nstatic class Strings {}\n",
    "Util/Numbers.cs": "namespace Acme.Util;\n\nstatic class Numbers {}\n",
    "Unused/Dead.cs": "namespace Acme.Unused { class Dead {} }\n",
}
SWIFT = {
    "Package.swift": "// swift-tools-version:5.9\nimport PackageDescription\n",
    "Sources/App/main.swift": "import Foundation\nimport Core\nimport Alamofire\n\nrun()\n",
    "Sources/Core/Store.swift": "import Models\n\npublic func run() {}\n",
    "Sources/Core/Cache.swift": "struct Cache {}\n",
    "Sources/Models/User.swift": "@testable import Core\npublic struct User {}\n",
    "Tests/CoreTests/StoreTests.swift": "import XCTest\n@testable import Core\n",
}
C = {
    "src/main.c": '#include "util.h"\n#include <stdio.h>\n#include "local.h"\n\nint main(void) { return 0; }\n',
    "include/util.h": '#include "../src/local.h"\n',
    "src/local.h": "#define LOCAL 1\n",
    "src/unused.c": '#include "missing.h"\n',
}


async def _one(call: Call, **query: Any) -> dict[str, Any]:
    return (await call("localDependencyGraph", query))[0]


def _files(answer: dict[str, Any]) -> list[str]:
    return [item["file"] for item in answer["data"]["items"]]


async def test_go_module_packages(call: Call, tree: Tree) -> None:
    tree(GO)
    main = await _one(call, operation="dependencies", file="cmd/app/main.go")
    items = {i["file"]: i for i in main["data"]["items"]}
    assert set(items) == {
        "fmt",
        "internal/store/cache.go",
        "internal/store/store.go",
        "github.com/pkg/errors",
    }
    assert items["fmt"]["standardLibrary"] is True
    assert items["internal/store/store.go"]["line"] == 5
    cycles = await _one(call, operation="cycles")
    assert [i["members"] for i in cycles["data"]["items"]] == [
        ["internal/model/model.go", "internal/store/store.go"]
    ]
    unreachable = await _one(call, operation="unreachable")
    assert _files(unreachable) == ["unused/dead.go"]
    dependents = await _one(call, operation="dependents", file="internal/model/model.go", depth=3)
    assert [(i["file"], i["distance"]) for i in dependents["data"]["items"]] == [
        ("internal/store/store.go", 1),
        ("cmd/app/main.go", 2),
    ]
    path = await _one(
        call, operation="path", file="cmd/app/main.go", target="internal/model/model.go"
    )
    hops = path["data"]["items"][0]["hops"]
    assert [(h["file"], h["line"]) for h in hops] == [
        ("cmd/app/main.go", 5),
        ("internal/store/store.go", 3),
    ]


async def test_rust_mod_tree_and_paths(call: Call, tree: Tree) -> None:
    tree(RUST)
    main = await _one(call, operation="dependencies", file="src/main.rs")
    items = {i["file"]: i for i in main["data"]["items"]}
    assert set(items) == {"src/config.rs", "src/net/mod.rs", "std", "serde"}
    assert items["src/config.rs"]["line"] == 1 and items["std"]["standardLibrary"] is True
    config = await _one(call, operation="dependencies", file="src/config.rs")
    assert set(_files(config)) == {"src/net/client.rs", "src/net/mod.rs"}
    cycles = await _one(call, operation="cycles")
    # config -> net (self in the list) -> client (mod client;) -> config
    assert [i["members"] for i in cycles["data"]["items"]] == [
        ["src/config.rs", "src/net/client.rs", "src/net/mod.rs"]
    ]
    path = await _one(call, operation="path", file="src/main.rs", target="src/net/client.rs")
    # Two chains of two hops; the first import of the file comes first.
    assert [h["imports"] for h in path["data"]["items"][0]["hops"]] == [
        "src/config.rs",
        "src/net/client.rs",
    ]
    tool = await _one(call, operation="dependencies", file="src/bin/tool.rs")
    assert _files(tool) == ["util/src/text.rs"]
    unreachable = await _one(call, operation="unreachable")
    assert _files(unreachable) == ["src/orphan.rs"]


async def test_java_and_kotlin_packages(call: Call, tree: Tree) -> None:
    tree(JVM)
    app = await _one(call, operation="dependencies", file="src/main/java/com/acme/App.java")
    items = {i["file"]: i for i in app["data"]["items"]}
    assert set(items) == {
        "src/main/java/com/acme/util/Strings.java",
        "src/main/java/com/acme/model/User.java",
        "src/main/java/com/acme/model/Order.java",
        "java.util",
    }
    assert items["java.util"]["standardLibrary"] is True
    cycles = await _one(call, operation="cycles")
    assert cycles["data"]["items"][0]["size"] == 2
    dependents = await _one(
        call, operation="dependents", file="src/main/java/com/acme/model/User.java"
    )
    assert set(_files(dependents)) == {
        "src/main/java/com/acme/App.java",
        "src/main/kotlin/com/acme/report/Report.kt",
    }
    report = await _one(
        call, operation="dependencies", file="src/main/kotlin/com/acme/report/Report.kt"
    )
    assert set(_files(report)) == {
        "src/main/java/com/acme/model/User.java",
        "src/main/kotlin/com/acme/text/Shouting.kt",
    }
    unreachable = await _one(call, operation="unreachable")
    assert _files(unreachable) == [
        "src/main/kotlin/com/acme/report/Report.kt",
        "src/main/kotlin/com/acme/text/Shouting.kt",
    ]


async def test_c_includes(call: Call, tree: Tree) -> None:
    root = tree(C)
    commands = [
        {
            "directory": str(root),
            "file": "src/main.c",
            "arguments": ["cc", "-Iinclude", "-c", "src/main.c"],
        }
    ]
    (root / "compile_commands.json").write_text(json.dumps(commands))
    main = await _one(call, operation="dependencies", file="src/main.c")
    assert set(_files(main)) == {"include/util.h", "stdio.h", "src/local.h"}
    util = await _one(call, operation="dependents", file="src/local.h")
    assert set(_files(util)) == {"src/main.c", "include/util.h"}
    unreachable = await _one(call, operation="unreachable")
    assert _files(unreachable) == ["src/unused.c"]
    assert "src/unused.c:1: 'missing.h' not found" in unreachable["data"]["diagnostics"]


async def test_scala_packages_beside_java(call: Call, tree: Tree) -> None:
    tree(SCALA)
    main = await _one(call, operation="dependencies", file="src/main/scala/com/acme/Main.scala")
    items = {i["file"]: i for i in main["data"]["items"]}
    assert set(items) == {
        "src/main/scala/com/acme/util/Strings.scala",
        "src/main/scala/com/acme/model/User.scala",
        "src/main/scala/com/acme/model/Order.scala",
        "src/main/scala/com/acme/text/Shout.scala",
        "src/main/scala/com/acme/text/Whisper.scala",
        "scala.collection",
        "cats.effect",
    }
    assert items["scala.collection"]["standardLibrary"] is True
    assert "standardLibrary" not in items["cats.effect"]
    assert items["src/main/scala/com/acme/text/Whisper.scala"]["line"] == 5
    cycles = await _one(call, operation="cycles")
    assert [i["members"] for i in cycles["data"]["items"]] == [
        ["src/main/scala/com/acme/Main.scala", "src/main/scala/com/acme/util/Strings.scala"]
    ]
    user = await _one(call, operation="dependents", file="src/main/scala/com/acme/model/User.scala")
    assert set(_files(user)) == {
        "src/main/scala/com/acme/Main.scala",
        "src/main/java/com/acme/legacy/Old.java",
    }
    unreachable = await _one(call, operation="unreachable")
    assert _files(unreachable) == ["src/main/java/com/acme/legacy/Old.java"]


async def test_csharp_namespaces(call: Call, tree: Tree) -> None:
    tree(CSHARP)
    program = await _one(call, operation="dependencies", file="App/Program.cs")
    items = {i["file"]: i for i in program["data"]["items"]}
    assert set(items) == {
        "System",
        "Models/Order.cs",
        "Models/User.cs",
        "Util/Strings.cs",
        "Newtonsoft.Json",
    }
    assert items["System"]["standardLibrary"] is True
    assert items["Util/Strings.cs"]["line"] == 3
    util = await _one(call, operation="dependents", file="Util/Numbers.cs")
    assert _files(util) == ["Models/User.cs"]
    cycles = await _one(call, operation="cycles")
    assert [i["members"] for i in cycles["data"]["items"]] == [
        ["Models/User.cs", "Util/Strings.cs"]
    ]
    unreachable = await _one(call, operation="unreachable")
    assert _files(unreachable) == ["Unused/Dead.cs"]


async def test_swift_module_folders(call: Call, tree: Tree) -> None:
    tree(SWIFT)
    main = await _one(call, operation="dependencies", file="Sources/App/main.swift")
    items = {i["file"]: i for i in main["data"]["items"]}
    assert set(items) == {
        "Foundation",
        "Sources/Core/Cache.swift",
        "Sources/Core/Store.swift",
        "Alamofire",
    }
    assert items["Foundation"]["standardLibrary"] is True
    core = await _one(call, operation="dependents", file="Sources/Core/Cache.swift")
    assert set(_files(core)) == {
        "Sources/App/main.swift",
        "Sources/Models/User.swift",
        "Tests/CoreTests/StoreTests.swift",
    }
    cycles = await _one(call, operation="cycles")
    assert [i["members"] for i in cycles["data"]["items"]] == [
        ["Sources/Core/Store.swift", "Sources/Models/User.swift"]
    ]
    unreachable = await _one(call, operation="unreachable", includeTests=False)
    assert _files(unreachable) == ["Package.swift", "Tests/CoreTests/StoreTests.swift"]
