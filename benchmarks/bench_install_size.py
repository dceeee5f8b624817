"""What each install of octo-gateway weighs: the user install (the core) and each extra on top
of it, measured in this venv from the installed files of every distribution each one pulls in.

A distribution's size is the sum of the files its RECORD lists (what pip put in the venv); an
extra's size is what it adds to the core (distributions the core already has are not counted
again). Run it in the developer venv, which holds every extra:
``.venv/bin/python benchmarks/bench_install_size.py``. See benchmarks/README.md.
"""

from __future__ import annotations

import importlib.metadata as metadata
import re
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement

DISTRIBUTION = "octo-gateway"
EXTRAS = ("lsp", "semantic", "team", "test")
#: What every venv holds before anything is installed.
VENV_BASE = ("pip", "setuptools")


def _name(text: str) -> str:
    return re.sub(r"[-_.]+", "-", text).lower()


def closure(name: str, extras: tuple[str, ...] = ()) -> set[str]:
    """``name`` and every distribution it needs (with ``extras``), as installed here."""
    seen: set[str] = set()
    pending = [(name, extras)]
    while pending:
        current, wanted = pending.pop()
        try:
            dist = metadata.distribution(current)
        except metadata.PackageNotFoundError:
            continue
        key = _name(dist.metadata["Name"])
        if key in seen and not wanted:
            continue
        seen.add(key)
        for line in dist.requires or []:
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
    total = 0
    for file in dist.files or []:
        path = Path(str(dist.locate_file(file)))
        if path.is_file():
            total += path.stat().st_size
    return total


def megabytes(names: set[str]) -> float:
    return sum(size_bytes(n) for n in names) / 1e6


def main() -> None:
    base = {_name(n) for n in VENV_BASE}
    core = closure(DISTRIBUTION) - base
    print(f"user install (core): {megabytes(core):.0f} MB in {len(core)} distributions")
    everything = set(core)
    for extra in EXTRAS:
        added = closure(DISTRIBUTION, (extra,)) - core - base
        everything |= added
        largest = sorted(added, key=size_bytes, reverse=True)[:3]
        shown = ", ".join(f"{n} {size_bytes(n) / 1e6:.0f} MB" for n in largest)
        print(f"  + [{extra}]: {megabytes(added):.0f} MB ({shown})")
    print(f"developer install (every extra): {megabytes(everything):.0f} MB")


if __name__ == "__main__":
    main()
