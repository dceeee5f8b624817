"""git repositories built in a test with real git: known history to compare octo's answers
with ``git blame --porcelain`` and ``git log`` run on the same repository."""

from __future__ import annotations

import copy
import functools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

#: A fixed identity and clock, so the history is the same on every run.
_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_AUTHOR_NAME": "Ada",
    "GIT_AUTHOR_EMAIL": "ada@example.test",
    "GIT_COMMITTER_NAME": "Ada",
    "GIT_COMMITTER_EMAIL": "ada@example.test",
}


class Repo:
    """A repository at ``path``; each commit one tick later than the last."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.tick = 1_700_000_000
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str) -> str:
        """Run git here (the test's own git, outside octo); its stdout."""
        env = {**os.environ, **_ENV, "GIT_AUTHOR_DATE": f"@{self.tick} +0200"}
        env["GIT_COMMITTER_DATE"] = env["GIT_AUTHOR_DATE"]
        done = subprocess.run(
            ["git", *args], cwd=self.path, env=env, check=True, capture_output=True, text=True
        )
        return done.stdout

    def write(self, rel: str, text: str) -> None:
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)

    def commit(self, message: str, **files: str) -> str:
        """Write ``files`` (``a_py`` names ``a.py``), commit all; the new sha."""
        for name, text in files.items():
            self.write(name.replace("_", "."), text)
        self.tick += 60
        self.git("add", "-A")
        self.git("commit", "-q", "--no-verify", "-m", message)
        return self.git("rev-parse", "HEAD").strip()

    def copied_to(self, path: Path) -> Repo:
        """This repository copied to ``path``: the same commits and shas, its clock where this
        one's stands."""
        shutil.copytree(self.path, path, symlinks=True, dirs_exist_ok=True)
        twin = copy.copy(self)
        twin.path = path
        return twin


Built = tuple[Repo, dict[str, str]]


def built_once(build: Callable[[Path], Built]) -> Callable[[Path], Built]:
    """``build(path)`` run once per test process, in a folder of its own; each call gets a copy
    of that repository at ``path`` and its shas. The clock is fixed, so the copy is what
    ``build`` would have made there; copying costs a tenth of the git runs that build it."""

    @functools.cache
    def built() -> tuple[tempfile.TemporaryDirectory[str], Repo, dict[str, str]]:
        # The folder is removed when the process exits (the directory object's finalizer).
        folder = tempfile.TemporaryDirectory(prefix="octo-test-repo-")
        repo, shas = build(Path(folder.name) / "repo")
        return folder, repo, shas

    @functools.wraps(build)
    def copied(path: Path) -> Built:
        _, repo, shas = built()
        return repo.copied_to(path), dict(shas)

    return copied


def blamed_lines(repo: Repo, *args: str) -> list[str]:
    """The sha of each line, as ``git blame --porcelain`` says."""
    out = repo.git("blame", "--porcelain", *args)
    by_line: dict[int, str] = {}
    for line in out.splitlines():
        head = line.split(" ")
        if len(head[0]) == 40 and len(head) >= 3 and head[1].isdigit():
            by_line[int(head[2])] = head[0]
    return [by_line[n] for n in sorted(by_line)]


@built_once
def history_repo(path: Path) -> Built:
    """Renames, a merge, a line moved between files, a whitespace-only change and a commit
    that removed a function; the shas by name."""
    repo = Repo(path)
    shas: dict[str, str] = {}
    body = "".join(f"x{i} = {i}\n" for i in range(10))
    shas["first"] = repo.commit(
        "first", a_py=f"def f():\n    return 1\n\ndef g():\n    return 2\n{body}"
    )
    repo.git("mv", "a.py", "b.py")
    shas["rename"] = repo.commit("rename a to b")
    repo.git("checkout", "-q", "-b", "side")
    text = (repo.path / "b.py").read_text().replace("x3 = 3", "x3 = 33")
    shas["side"] = repo.commit("side change", b_py=text)
    repo.git("checkout", "-q", "main")
    text = (repo.path / "b.py").read_text().replace("x8 = 8", "x8 = 88")
    shas["main"] = repo.commit("main change", b_py=text)
    repo.tick += 60
    repo.git("merge", "-q", "--no-edit", "side")
    shas["merge"] = repo.git("rev-parse", "HEAD").strip()
    text = (repo.path / "b.py").read_text()
    shas["move"] = repo.commit("move x5 to c", b_py=text.replace("x5 = 5\n", ""), c_py="x5 = 5\n")
    text = (repo.path / "b.py").read_text().replace("    return 1", "        return 1")
    shas["spaces"] = repo.commit("indent f", b_py=text)
    text = (repo.path / "b.py").read_text().replace("def g():\n    return 2\n", "")
    shas["remove_g"] = repo.commit("remove g", b_py=text)
    return repo, shas
