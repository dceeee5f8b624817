"""Record the registry answers the packageSearch tests replay (run by hand, needs network).

    .venv/bin/python tests/packages/record_registries.py

The registries are the ones this machine's npm and pip configuration name (found by
octo's own discovery, so no hostname is written here). Every answer is trimmed (version
lists, READMEs) and every registry host is replaced by a placeholder BEFORE anything is
written: registry.test (npm), pypi.test (Python index), files.test (Python files).
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx

from octo.packages.endpoints import discover_npm_registry
from octo.packages.endpoints import discover_python_index
from octo.packages.npm import npm_package_path

OUT = Path(__file__).parent / "recordings"
NPM_PLACEHOLDER = "https://registry.test/"
PYPI_PLACEHOLDER = "https://pypi.test/simple/"
FILES_HOST = "files.test"
PEP691 = "application/vnd.pypi.simple.v1+json"
KEEP_HEADERS = ("content-type", "etag")
KEPT_VERSIONS = 4
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


class Scrubber:
    """Replaces every real registry host; refuses to write if one survives."""

    def __init__(self) -> None:
        self.hosts: dict[str, str] = {}

    def add(self, real_url: str, placeholder_host: str) -> None:
        host = urlsplit(real_url).netloc
        if host:
            self.hosts[host] = placeholder_host

    def __call__(self, text: str) -> str:
        for real, placeholder in sorted(self.hosts.items(), key=lambda kv: -len(kv[0])):
            text = text.replace(real, placeholder)
        # Maintainers' addresses are public, but nothing here needs them.
        return EMAIL.sub(
            lambda m: m[0] if m[0].startswith("git@") else "someone@example.test", text
        )

    def check(self, text: str) -> None:
        for real in self.hosts:
            # The registrable domain too (a sibling host of the same registry).
            domain = ".".join(real.split(".")[-2:])
            if real in text or re.search(rf"[/.@]{re.escape(domain)}\b", text):
                sys.exit("refusing to write: a registry hostname survived scrubbing")


def newest(keys: list[str], times: dict[str, Any]) -> list[str]:
    return sorted(keys, key=lambda v: str(times.get(v, "")), reverse=True)[:KEPT_VERSIONS]


def trim_npm(doc: Any) -> Any:
    if not isinstance(doc, dict):
        return doc
    for noise in ("readme", "scripts", "devDependencies", "dist", "_npmUser", "gitHead"):
        doc.pop(noise, None)
    versions = doc.get("versions")
    if isinstance(versions, dict):
        times = doc.get("time", {})
        latest = doc.get("dist-tags", {}).get("latest")
        keep = set(newest(list(versions), times)) | ({latest} if latest else set())
        doc["versions"] = {v: trim_npm(m) for v, m in versions.items() if v in keep}
        doc["time"] = {k: t for k, t in times.items() if k in keep or k in ("created", "modified")}
    return doc


def trim_pypi_json(doc: Any) -> Any:
    info = doc["info"]
    info.pop("description", None)
    info.pop("downloads", None)
    releases = doc.get("releases", {})
    keep = set(
        sorted(releases, key=lambda v: releases[v][0]["upload_time"] if releases[v] else "")[
            -KEPT_VERSIONS:
        ]
    )
    keep.add(info["version"])
    doc["releases"] = {v: files[:1] for v, files in releases.items() if v in keep}
    doc["urls"] = doc.get("urls", [])[:1]
    for noise in ("vulnerabilities", "ownership"):
        doc.pop(noise, None)
    return doc


def trim_simple(doc: Any) -> Any:
    files = doc["files"]
    versions = doc.get("versions", [])
    keep = set(versions[-KEPT_VERSIONS:])
    doc["files"] = [
        f
        for f in files
        if any(f"-{v}-" in f["filename"] or f"-{v}.tar" in f["filename"] for v in keep)
    ]
    doc["versions"] = [v for v in versions if v in keep]
    return doc


def trim_metadata(text: str) -> str:
    headers, _, _body = text.partition("\n\n")
    return headers + "\n\n"


async def main() -> None:
    env = dict(os.environ)
    cwd = Path.cwd()
    npm = await discover_npm_registry(env, cwd)
    index = await discover_python_index(env, cwd)
    if npm is None or index is None:
        sys.exit("no registry configured on this machine")
    scrub = Scrubber()
    scrub.add(npm.url, urlsplit(NPM_PLACEHOLDER).netloc)
    scrub.add(index.simple_url, urlsplit(PYPI_PLACEHOLDER).netloc)
    recordings: dict[str, list[dict[str, Any]]] = {}

    async with httpx.AsyncClient(follow_redirects=True, timeout=30) as http:

        async def get(
            name: str, url: str, trim: Any = None, accept: str | None = None, text: bool = False
        ) -> httpx.Response:
            response = await http.get(url, headers={"Accept": accept} if accept else {})
            body: Any = None
            if response.status_code == 200:
                body = trim_metadata(response.text) if text else response.json()
                if trim is not None:
                    body = trim(body)
            interaction = {
                "request": {
                    "method": "GET",
                    "url": url,
                    "headers": {"accept": accept} if accept else {},
                },
                "response": {
                    "status": response.status_code,
                    "headers": {k: v for k, v in response.headers.items() if k in KEEP_HEADERS},
                    "body": body if not text else None,
                    "text": body if text else (None if body is not None else response.text[:200]),
                },
            }
            recordings.setdefault(name, []).append(interaction)
            return response

        registry = npm.url
        for package in ("axios", "@babel/core", "express"):
            await get("npm-latest", f"{registry}{npm_package_path(package)}/latest", trim_npm)
        await get("npm-packument", f"{registry}left-pad", trim_npm)
        await get("npm-missing", f"{registry}octo-no-such-package-xyz/latest")
        await get("npm-missing", f"{registry}octo-no-such-package-xyz")
        await get("npm-missing", f"{registry}-/v1/search?text=octo-no-such-package-xyz&size=5")

        json_api = index.json_api_url
        for package in ("requests", "six"):
            response = await get("pypi-json", f"{json_api}/{package}/json", trim_pypi_json)
            for file in response.json().get("urls", []):
                scrub.add(file["url"], FILES_HOST)
        await get("pypi-missing", f"{json_api}/octo-no-such-package-xyz/json")
        await get("pypi-missing", f"{index.simple_url}octo-no-such-package-xyz/", accept=PEP691)
        page = await get("pypi-simple", f"{index.simple_url}idna/", trim_simple, accept=PEP691)
        files = trim_simple(page.json())["files"]
        for file in files:
            scrub.add(file["url"], FILES_HOST)
        wheel = next(f for f in reversed(files) if f["filename"].endswith(".whl"))
        await get("pypi-simple", wheel["url"].split("#")[0] + ".metadata", text=True)

    OUT.mkdir(exist_ok=True)
    for name, interactions in recordings.items():
        text = scrub(json.dumps({"interactions": interactions}, indent=1, sort_keys=True))
        scrub.check(text)
        (OUT / f"{name}.json").write_text(text + "\n", encoding="utf-8")
        print(f"wrote {name}.json ({len(text)} chars)")


if __name__ == "__main__":
    anyio.run(main)
