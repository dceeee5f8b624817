"""A diff's "+", "-" or space prefix hides no secret: githubGetCommit with patches of a
committed .env, a deleted private key and a changed password (a real local HTTP server
answering GitHub's commit shape, from the recorded example)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from octo.core.config import Config
from octo.faces.library import Gateway
from tests.recording_server import RecordingServer
from tests.security.conftest import Reply
from tests.security.conftest import serve_recording
from tests.security.planted import _chars
from tests.security.planted import private_key

SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e"
RECORDED = Path(__file__).parent.parent / "codehosts/hosts/github/recordings/history.json"
KEY, BODY = private_key("RSA PRIVATE KEY")
ENV_VALUES = [_chars("diff-env", 24), _chars("diff-deploy", 20) + "-", "Q7" + _chars("diff-q", 16)]
OLD, NEW = "Old9" + _chars("diff-old", 16), "New7" + _chars("diff-new", 16)
VALUES = [*ENV_VALUES, *BODY, OLD, NEW]


def _patch(lines: list[str], sign: str) -> str:
    head = f"@@ -{'1' if sign == '-' else '0'},{len(lines)} +{'0,0' if sign == '-' else '1,' + str(len(lines))} @@"
    return "\n".join([head, *(sign + line for line in lines)])


FILES = [
    {
        "filename": ".env",
        "status": "added",
        "patch": _patch(
            [
                f"API_KEY={ENV_VALUES[0]}",
                f"export DEPLOY_TOKEN={ENV_VALUES[1]}  # rotated",
                f'JWT_SECRET="{ENV_VALUES[2]}"',
            ],
            "+",
        ),
    },
    {"filename": "deploy/id_rsa", "status": "removed", "patch": _patch(KEY.splitlines(), "-")},
    {
        "filename": "settings.py",
        "status": "modified",
        "patch": "\n".join(
            [
                "@@ -1,3 +1,3 @@",
                f'-DB_PASSWORD = "{OLD}"',
                f'+DB_PASSWORD = "{NEW}"',
                f' LEGACY = connect("{OLD}")',
            ]
        ),
    },
]


def _commit() -> dict[str, Any]:
    recorded = json.loads(RECORDED.read_text())["interactions"]
    body: dict[str, Any] = next(
        i["response"]["body"] for i in recorded if i["request"]["url"].endswith(f"/commits/{SHA}")
    )
    files = [
        {
            **f,
            "additions": 3,
            "deletions": 0,
            "changes": 3,
            "sha": "b" * 40,
            "blob_url": "",
            "raw_url": "",
        }
        for f in FILES
    ]
    return {**body, "files": files}


@pytest.fixture
def github() -> Iterator[RecordingServer]:
    body = _commit()
    yield from serve_recording(lambda _path: Reply(body=body))


async def test_secrets_in_patches_are_hidden_whatever_the_line_prefix(
    github: RecordingServer, tmp_path: Path
) -> None:
    env = {"HOME": str(tmp_path), "PATH": "", "GITHUB_API_URL": github.origin}
    env["GITHUB_TOKEN"] = "test-token-not-real-9f2"
    query = {"owner": "o", "repo": "r", "sha": SHA, "includePatch": True}
    async with Gateway(Config.from_env(env)) as gateway:
        response = await gateway.call("githubGetCommit", [query])
    row = response.to_wire()["results"][0]
    assert row["status"] == "success", row
    patches = " ".join(f.get("patch", "") for f in row["data"]["files"])
    assert "[REDACTED:" in patches and "-----BEGIN RSA PRIVATE KEY-----" in patches, row
    wire = response.to_compact_json()
    assert [value for value in VALUES if value in wire] == []
