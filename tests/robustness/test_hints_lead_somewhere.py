"""Hints a newcomer met that led nowhere: a .pyc to read, fixedString for a pattern plainly
meant as a regex, dot-files "skipped" in a single named file, no "did you mean path" for
``dir``, --root unmentioned on the command line; and a read whose estimate was over its
budget."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import octo


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "pkg" / "__pycache__").mkdir(parents=True)
    (root / "pkg" / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\x00bytecode")
    (root / "pkg" / "a.py").write_text("def run():\n    return 1\n")
    return root


async def test_view_structure_never_suggests_reading_bytecode(tmp_path: Path) -> None:
    root = _project(tmp_path)
    async with octo.Gateway(roots=[root]) as gw:
        cache = await gw.local_view_structure([{"path": "pkg/__pycache__"}])
        package = await gw.local_view_structure([{"path": "pkg", "depth": 2}])
    assert not any("localGetFileContent" in hint for hint in cache.results[0].hints)
    reads = [h for h in package.results[0].hints if "localGetFileContent" in h]
    assert reads and all(".pyc" not in hint for hint in reads)


async def test_fixed_string_is_offered_only_for_a_pattern_that_may_be_literal(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path)
    async with octo.Gateway(roots=[root]) as gw:
        response = await gw.local_search_code(
            [
                {"pattern": r"class \w+Error", "path": "."},
                {"pattern": "nothing|none", "path": "."},
                {"pattern": "run(x", "path": ".", "fixedString": False},
            ]
        )
    regex, alternation, maybe_literal = (r.hints for r in response.results)
    assert not any("fixedString" in hint for hint in regex + alternation)
    assert any("fixedString" in hint for hint in maybe_literal)


async def test_a_single_named_file_is_not_said_to_skip_dot_files(tmp_path: Path) -> None:
    root = _project(tmp_path)
    async with octo.Gateway(roots=[root]) as gw:
        response = await gw.local_search_code(
            [
                {"pattern": "absent", "path": "pkg/a.py"},
                {"pattern": "absent", "path": "pkg/a.py", "outputMode": "countOnly"},
                {"pattern": "absent", "path": "pkg"},
            ]
        )
    named, counted, folder = (r.hints for r in response.results)
    assert not any("Dot-files" in hint for hint in named + counted)
    assert any("Dot-files" in hint for hint in folder)


async def test_dir_is_taken_for_path(tmp_path: Path) -> None:
    root = _project(tmp_path)
    async with octo.Gateway(roots=[root]) as gw:
        for tool, query in (
            ("localSearchCode", {"pattern": "run", "dir": "."}),
            ("localViewStructure", {"dir": "."}),
            ("localFindFiles", {"dir": ".", "name": "*.py"}),
        ):
            [result] = (await gw.call(tool, [query])).results
            assert result.error is not None
            assert "did you mean path?" in result.error.message, tool


@pytest.mark.slow
def test_path_not_allowed_on_the_command_line_mentions_root(tmp_path: Path) -> None:
    root = _project(tmp_path)
    query = f'{{"pattern":"x","path":"{tmp_path}"}}'
    done = subprocess.run(
        [sys.executable, "-m", "octo", "call", "localSearchCode", "--root", str(root), "-q", query],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert "PATH_NOT_ALLOWED" in done.stdout
    assert "--root PATH allows another root" in done.stdout


async def test_a_cut_read_fits_its_whole_answer_in_the_budget(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    root.mkdir()
    # Quotes and tabs cost two characters each in the JSON the estimate counts.
    (root / "big.py").write_text("".join(f'x{n} = "\\t\\"{n}\\""\n' for n in range(20_000)))
    for max_tokens in (2000, 5000):
        config = octo.Config(roots=(root,), max_tokens=max_tokens)
        async with octo.Gateway(config) as gw:
            [result] = (await gw.local_get_file_content([{"path": "big.py"}])).results
        assert result.data is not None and result.data.tokens is not None
        tokens = result.data.tokens
        assert tokens.truncated
        assert tokens.estimatedTokens <= tokens.maxTokensPerRequest == max_tokens
        assert tokens.estimatedTokens > 0.75 * max_tokens  # most of the budget is used
