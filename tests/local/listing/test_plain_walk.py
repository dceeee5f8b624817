"""The in-process listing walk lists what rg's walk lists, and hands back to rg whatever
rules it does not apply itself."""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from octo.core.concurrency import RankedLimiter
from octo.core.files.confined import Opened
from octo.core.files.confined import open_confined
from octo.core.files.paths import PathPolicy
from octo.local.listing.entries import Walk
from octo.local.listing.entries import WalkOptions
from octo.local.listing.file_walk import rg_walk
from octo.local.listing.plain_walk import plain_walk
from octo.transports.ripgrep import RgPlace

#: Parent ignore rules of the kinds octo applies itself: names, directory names, and
#: anchored paths that cannot reach below the walked tree.
PARENT_RULES = "# generated\n*.log\nbuild/\ntmp?\n.idea\n/top-only\n/outer/other/*.txt\n\n"


#: No fenced folder lies below these walks.
_PATHS = PathPolicy([Path("/")])

_FAST = {(1, False, False), (2, True, False), (4, False, True)}


@pytest.fixture(autouse=True)
def no_global_excludes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A home without git configuration, for octo and the rg it starts."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))


@pytest.fixture
def walked_tree(tmp_path: Path) -> Path:
    """A tree under a directory whose .gitignore holds :data:`PARENT_RULES`."""
    outer = tmp_path / "outer"
    root = outer / "inner" / "tree"
    for rel in (
        "a.py",
        "notes.log",
        "tmp1",
        "build",
        "src/app.py",
        "src/deep/er/leaf.py",
        "src/deep/er/trace.log",
        "src/build/out.o",
        "only_ignored/x.log",
        ".hidden/secret.py",
        ".dotfile",
        ".idea/workspace.xml",
        "keep/e.txt",
    ):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    for rel in ("empty", "keep/build", ".empty_hidden", "src/deep/nothing"):
        (root / rel).mkdir()
    (root / "to_file").symlink_to(root / "a.py")
    (root / "src" / "to_dir").symlink_to(root / "keep")
    (root / "broken").symlink_to(root / "nowhere")
    os.mkfifo(root / "fifo")
    (outer / ".gitignore").write_text(PARENT_RULES)
    return root


@pytest.fixture
def opened(walked_tree: Path) -> Iterator[Opened]:
    with open_confined(walked_tree, walked_tree, str(walked_tree), directory=True) as start:
        yield start


def _comparable(walk: Walk) -> tuple[list[str], list[str], list[str], list[str], bool]:
    return (
        sorted(walk.files),
        walk.dirs,
        sorted(walk.symlinks),
        walk.empty_dirs,
        walk.truncated,
    )


def _in_process(start: Opened, options: WalkOptions) -> Walk:
    walked = plain_walk(start, options, time.monotonic() + 30)
    assert walked is not None
    return walked


#: Every combination; three of them in the fast lane (rg starts for each).
OPTIONS = [
    pytest.param(
        WalkOptions(
            max_depth=depth,
            hidden=hidden,
            no_ignore=no_ignore,
            paths=_PATHS,
            need_dirs=need_dirs,
            need_symlinks=True,
            need_empty_dirs=need_dirs,
        ),
        marks=() if (depth, hidden, no_ignore) in _FAST else pytest.mark.slow,
    )
    for depth, hidden, no_ignore, need_dirs in itertools.product(
        (1, 2, 4), (False, True), (False, True), (False, True)
    )
]


@pytest.mark.parametrize("options", OPTIONS, ids=repr)
async def test_lists_what_rg_lists(opened: Opened, options: WalkOptions) -> None:
    assert _comparable(_in_process(opened, options)) == _comparable(
        await rg_walk(opened, options, 10_000, place=RgPlace(RankedLimiter(1), None))
    )


async def test_parent_rules_are_obeyed(opened: Opened) -> None:
    options = WalkOptions(max_depth=4, hidden=False, no_ignore=False, paths=_PATHS)
    walked = _in_process(opened, options)
    assert "notes.log" not in walked.files and "tmp1" not in walked.files
    assert "build" in walked.files  # a file: the rule names directories only
    assert "src/build" not in walked.dirs and "only_ignored" not in walked.dirs
    assert "src/app.py" in walked.files and "keep" in walked.dirs


@pytest.mark.parametrize(
    "rules",
    [
        "!keep.log\n",  # a negation
        "*.[ch]\n",  # a character class
        "/inner/tree/*.py\n",  # an anchored path that reaches below the start
        "**/deep\n",  # a double star
        "a\\ b\n",  # an escape
    ],
)
def test_rules_octo_does_not_apply_are_rgs(walked_tree: Path, opened: Opened, rules: str) -> None:
    (walked_tree.parent.parent / ".ignore").write_text(rules)
    assert (
        plain_walk(
            opened, WalkOptions(max_depth=2, hidden=False, no_ignore=False, paths=_PATHS), 1e12
        )
        is None
    )


@pytest.mark.parametrize("name", [".gitignore", ".ignore", ".rgignore", ".git"])
# At depth 1, "many" lies below the window: its scan stops at its first file, and the ignore
# file among its 40 files (almost surely met later) must still be found.
@pytest.mark.parametrize("depth", [1, 3])
async def test_rules_inside_the_tree_are_rgs(
    walked_tree: Path, opened: Opened, name: str, depth: int
) -> None:
    (walked_tree / "many").mkdir()
    for number in range(40):
        (walked_tree / "many" / f"f{number}.py").write_text("x\n")
    (walked_tree / "many" / name).mkdir()
    options = WalkOptions(max_depth=depth, hidden=False, no_ignore=False, paths=_PATHS)
    assert plain_walk(opened, options, time.monotonic() + 30) is None
    # Without ignore rules the tree is octo's again.
    assert plain_walk(
        opened, WalkOptions(max_depth=depth, hidden=False, no_ignore=True, paths=_PATHS), 1e12
    )


def test_global_excludes_are_rgs(tmp_path: Path, opened: Opened) -> None:
    (tmp_path / "home" / ".gitconfig").write_text("[core]\n\texcludesFile = ~/.ignored\n")
    assert (
        plain_walk(
            opened, WalkOptions(max_depth=2, hidden=False, no_ignore=False, paths=_PATHS), 1e12
        )
        is None
    )


def test_filters_are_rgs(opened: Opened) -> None:
    for options in (
        WalkOptions(max_depth=2, hidden=False, no_ignore=False, paths=_PATHS, exclude_dirs=["src"]),
        WalkOptions(
            max_depth=2, hidden=False, no_ignore=False, paths=_PATHS, file_filters=["--type=py"]
        ),
    ):
        assert plain_walk(opened, options, 1e12) is None
    # Flags that only shorten rg's output leave the walk octo's.
    narrowed = WalkOptions(
        max_depth=2, hidden=False, no_ignore=False, paths=_PATHS, narrowing=["--type=py"]
    )
    assert plain_walk(opened, narrowed, 1e12) is not None


def test_a_walk_out_of_time_is_truncated(opened: Opened) -> None:
    walked = plain_walk(
        opened, WalkOptions(max_depth=4, hidden=False, no_ignore=False, paths=_PATHS), 0.0
    )
    assert walked is not None and walked.truncated


def test_a_parent_rule_changed_between_walks_is_obeyed(walked_tree: Path, opened: Opened) -> None:
    options = WalkOptions(max_depth=2, hidden=False, no_ignore=False, paths=_PATHS)
    assert "a.py" in _in_process(opened, options).files
    outer = walked_tree.parent.parent
    with (outer / ".gitignore").open("a") as rules:
        rules.write("a.py\n")  # an ignore file edited in place
    assert "a.py" not in _in_process(opened, options).files
    (walked_tree.parent / ".rgignore").write_text("keep/\n")  # one that appeared
    assert (
        "keep"
        not in _in_process(
            opened, WalkOptions(max_depth=2, hidden=False, no_ignore=False, paths=_PATHS)
        ).dirs
    )
    (walked_tree.parent / ".rgignore").unlink()  # and went
    assert "keep" in _in_process(opened, options).dirs
