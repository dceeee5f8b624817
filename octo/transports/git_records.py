"""What git prints, read into records: ``blame --incremental`` as hunks, and ``log`` in the
one format octo asks for (commits with their files or patches). The local history tools and
traceLine read a checkout through these alike."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from datetime import UTC
from datetime import datetime
from datetime import timedelta
from datetime import timezone

from octo.core.queries import BlameHunkItem

#: ``git log --format`` octo asks for: a record separator, then the fields.
LOG_FORMAT = "--format=%x1e%H%x1f%P%x1f%an%x1f%ae%x1f%aI%x1f%ct%x1f%B%x1f"


def blame_hunks(incremental: bytes, text: bytes) -> list[BlameHunkItem]:
    """The hunks of ``git blame --incremental`` output (cut short or whole) over the blamed
    file's ``text``, in line order; runs of one commit at consecutive lines are one hunk, as
    ``--porcelain`` groups them. Lines git had not reached yet are in no hunk."""
    lines = text.decode("utf-8", "replace").split("\n")
    facts: dict[str, dict[str, str]] = {}
    found: list[tuple[int, int, int, str, dict[str, str]]] = []
    head: tuple[str, int, int, int] | None = None
    for raw in incremental.decode("utf-8", "replace").split("\n"):
        name, _, rest = raw.partition(" ")
        if head is None:
            numbers = rest.split(" ")
            if len(name) == 40 and len(numbers) == 3 and all(n.isdigit() for n in numbers):
                head = (name, int(numbers[0]), int(numbers[1]), int(numbers[2]))
            continue
        known = facts.setdefault(head[0], {})
        if name == "filename":
            sha, original, final, count = head
            found.append((final, count, original, sha, {**known, "filename": rest}))
            head = None
        elif name:
            known[name] = rest or "1"
    hunks: list[BlameHunkItem] = []
    for final, count, original, sha, known in sorted(found):
        shown = lines[final - 1 : final - 1 + count]
        last = hunks[-1] if hunks else None
        if last and last.sha == sha and last.endLine + 1 == final:
            last.endLine += count
            last.lines += shown
            continue
        hunks.append(
            BlameHunkItem(
                startLine=final,
                endLine=final + count - 1,
                sha=sha,
                author=known.get("author", ""),
                date=_iso(known.get("author-time"), known.get("author-tz")),
                summary=known.get("summary", ""),
                originalLine=original,
                originalPath=known["filename"],
                lines=shown,
            )
        )
    return hunks


def _iso(seconds: str | None, zone: str | None) -> str:
    if not seconds:
        return ""
    moment = datetime.fromtimestamp(int(seconds), UTC)
    if zone and len(zone) == 5:
        sign = -1 if zone[0] == "-" else 1
        offset = sign * (int(zone[1:3]) * 3600 + int(zone[3:]) * 60)
        moment = moment.astimezone(timezone(timedelta(seconds=offset)))
    return moment.isoformat()


@dataclass
class LoggedCommit:
    """One commit of ``git log`` in :data:`LOG_FORMAT`: its facts (``committed``: the
    committer's time, in seconds, which orders git's walk), files and patch."""

    sha: str
    parents: list[str]
    author: str
    author_mail: str
    date: str
    committed: int
    message: str
    files: list[str] = field(default_factory=list)
    patch: str = ""


def logged_commits(output: bytes) -> list[LoggedCommit]:
    """The commits of ``git log`` output in :data:`LOG_FORMAT`, followed by
    ``--name-status`` lines or a patch (``-p``, ``-L``); a last record cut short is dropped."""
    commits: list[LoggedCommit] = []
    for record in output.decode("utf-8", "replace").split("\x1e")[1:]:
        fields = record.split("\x1f", 7)
        if len(fields) < 8 or not fields[5].isdigit():
            continue
        sha, parents, author, mail, date, committed, message, rest = fields
        rest = rest.strip("\n")
        commit = LoggedCommit(
            sha, parents.split(), author, mail, date, int(committed), message.strip()
        )
        if rest.startswith("diff --git"):
            commit.patch = rest + "\n"
            commit.files = _patched_files(rest)
        elif rest:
            commit.files = [" ".join(line.split("\t")) for line in rest.splitlines() if line]
        commits.append(commit)
    return commits


def _patched_files(patch: str) -> list[str]:
    """The files a patch changes, as ``--name-status`` would name them (M, A, D, R)."""
    files: list[str] = []
    for line in patch.splitlines():
        if line.startswith("diff --git "):
            files.append(f"M {line.rpartition(' b/')[2]}")
        elif files and line.startswith("new file mode"):
            files[-1] = "A" + files[-1][1:]
        elif files and line.startswith("deleted file mode"):
            files[-1] = "D" + files[-1][1:]
        elif files and line.startswith("rename from "):
            files[-1] = f"R {line.removeprefix('rename from ')} {files[-1][2:]}"
    return files
