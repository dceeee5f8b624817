"""The committed recordings name no real package index host and hold nothing shaped like a
token."""

from __future__ import annotations

import re
from pathlib import Path

RECORDINGS = Path(__file__).parent / "recordings"

# Placeholders, plus the forges and project sites the recorded packages link to.
ALLOWED_HOSTS = {
    "registry.test",
    "pypi.test",
    "files.test",
    "example.test",
    "github.com",
    "opencollective.com",
    "babel.dev",
    "expressjs.com",
    "axios-http.com",
    "requests.readthedocs.io",
}
URL_HOST = re.compile(r"(?:https?|git|ssh)://(?:[^@/\s\"]+@)?([^/:\s\"]+)")
SCP_HOST = re.compile(r"\bgit@([^:\s\"]+):")
MAIL_DOMAIN = re.compile(r"[\w.+-]+@([\w-]+(?:\.[\w-]+)+)")
TOKEN = re.compile(r"(gh[pousr]_|github_pat_|glpat-|npm_)[A-Za-z0-9_]{16,}|_authToken")


def test_every_host_is_a_placeholder_or_a_project_site() -> None:
    files = sorted(RECORDINGS.glob("*.json"))
    assert files
    for path in files:
        text = path.read_text(encoding="utf-8")
        hosts = set(URL_HOST.findall(text)) | set(SCP_HOST.findall(text))
        hosts |= {d for d in MAIL_DOMAIN.findall(text) if d != "github.com"}
        assert hosts <= ALLOWED_HOSTS, f"{path.name}: unexpected hosts {hosts - ALLOWED_HOSTS}"


def test_no_tokens() -> None:
    for path in RECORDINGS.glob("*.json"):
        assert not TOKEN.search(path.read_text(encoding="utf-8")), path.name
