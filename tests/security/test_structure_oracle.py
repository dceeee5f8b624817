"""localSearchStructure is no oracle: a rule's `regex` (or any pattern or relation) runs over
the text octo would show, so extending a guessed prefix of a hidden token one character at
a time gets the same answer whatever the guess (issue 31: 1,026 queries recovered a token)."""

from __future__ import annotations

import string
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import octo
from octo.core.config import Config

#: Built at run time: no token-shaped literal in the tests. 40 characters.
TOKEN = "ghp_" + "Zq7Xw2Lk9Rt4Vb8Nm3Hs6Jd1Fg5Cp0Ya2UeK"
ALPHABET = string.ascii_letters + string.digits


@pytest.fixture
async def gateway(tmp_path: Path) -> AsyncIterator[octo.Gateway]:
    assert len(TOKEN) == 40
    (tmp_path / "settings.py").write_text(f'import os\nGITHUB_TOKEN = "{TOKEN}"\nDEBUG = 1\n')
    (tmp_path / "plain.py").write_text('def main():\n    return "hello"\n')
    async with octo.Gateway(Config(), roots=[tmp_path]) as gw:
        yield gw


def _probes(prefix: str) -> list[dict[str, Any]]:
    """The rules an attacker would try for one guessed prefix."""
    return [
        {"kind": "string_content", "regex": f"^{prefix}"},
        {"kind": "assignment", "regex": prefix},
        {"kind": "module", "regex": prefix},
        {"pattern": "$N = $V", "has": {"kind": "string_content", "regex": f"^{prefix}"}},
    ]


async def _answers(gateway: octo.Gateway, rules: list[dict[str, Any]]) -> list[Any]:
    answers: list[Any] = []
    for start in range(0, len(rules), 5):
        queries = [
            {"rule": rule, "language": "python", "path": "."} for rule in rules[start : start + 5]
        ]
        rows = (await gateway.call("localSearchStructure", queries)).to_wire()["results"]
        assert all(row["status"] != "error" for row in rows), rows
        answers += [
            (row["data"]["totalMatches"], [m["text"] for m in row["data"].get("matches", [])])
            for row in rows
        ]
    return answers


@pytest.mark.slow
async def test_prefix_by_prefix_every_probe_answers_the_same(gateway: octo.Gateway) -> None:
    # The first hidden characters against the whole alphabet, as the attack went.
    first = await _answers(gateway, [_probes("ghp_" + c)[0] for c in ALPHABET])
    assert len(set(map(repr, first))) == 1, "a first character was told apart"
    # Then every prefix of the token, right guess beside a wrong one, with every rule form.
    for length in range(len("ghp_"), len(TOKEN) + 1):
        right = TOKEN[:length]
        wrong = right[:-1] + ("0" if right[-1] != "0" else "1")
        answers = await _answers(gateway, _probes(right) + _probes(wrong))
        half = len(answers) // 2
        assert answers[:half] == answers[half:], f"prefix {length} was told apart"
        assert not any(TOKEN[4:] in repr(answer) for answer in answers)
