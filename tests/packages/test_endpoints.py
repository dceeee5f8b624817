"""The npm registry and the Python index come from the user's npm and pip configuration, in
their precedence."""

from __future__ import annotations

import os
import stat
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from octo.core.registries import parse_npmrc
from octo.packages.endpoints import PythonIndex
from octo.packages.endpoints import discover_npm_registry
from octo.packages.endpoints import discover_python_index
from octo.packages.endpoints import is_http_url


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def fake_command(folder: Path, name: str, output: str) -> str:
    """An executable ``name`` in ``folder`` printing ``output``: stands in for npm or python."""
    script = write(folder / name, f"#!/bin/sh\necho '{output}'\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(folder)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    write(folder / "package.json", "{}")
    return folder


def base_env(home: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(home), "PATH": "", "NPM_CONFIG_GLOBALCONFIG": str(home / "none"), **extra}


# npm


async def test_octo_variable_wins(home: Path, project: Path) -> None:
    write(project / ".npmrc", "registry=https://project.test/\n")
    env = base_env(
        home, OCTO_NPM_REGISTRY="https://octo.test/npm", npm_config_registry="https://x.test/"
    )
    found = await discover_npm_registry(env, project)
    assert found is not None
    assert (found.url, found.source) == ("https://octo.test/npm/", "OCTO_NPM_REGISTRY")


async def test_npm_environment_setting_any_case(home: Path, project: Path) -> None:
    write(project / ".npmrc", "registry=https://project.test/\n")
    found = await discover_npm_registry(
        base_env(home, npm_config_registry="https://env.test/"), project
    )
    assert found is not None and found.url == "https://env.test/"


async def test_project_then_user_then_global_npmrc(home: Path, project: Path) -> None:
    write(home / ".npmrc", "registry=https://user.test/\n")
    global_rc = write(home / "global" / "npmrc", "registry=https://global.test/\n")
    env = base_env(home, NPM_CONFIG_GLOBALCONFIG=str(global_rc))
    nested = project / "src" / "deep"
    nested.mkdir(parents=True)

    assert (await discover_npm_registry(env, nested)).url == "https://user.test/"  # type: ignore[union-attr]
    write(project / ".npmrc", '; comment\nregistry = "https://project.test/npm"\n')
    found = await discover_npm_registry(env, nested)
    assert found is not None
    assert (found.url, found.source) == ("https://project.test/npm/", str(project / ".npmrc"))
    (home / ".npmrc").unlink()
    (project / ".npmrc").unlink()
    assert (await discover_npm_registry(env, nested)).url == "https://global.test/"  # type: ignore[union-attr]


async def test_npmrc_scopes_tokens_and_variables(home: Path, project: Path) -> None:
    write(
        project / ".npmrc",
        "registry=${REG}\n"
        "@corp:registry=https://corp.test/npm/\n"
        "//corp.test/npm/:_authToken=${CORP_TOKEN}\n",
    )
    env = base_env(home, REG="https://main.test/", CORP_TOKEN="test-token-not-real")
    found = await discover_npm_registry(env, project)
    assert found is not None
    assert found.url == "https://main.test/"
    assert found.for_package("@corp/tool") == "https://corp.test/npm/"
    assert found.for_package("lodash") == "https://main.test/"
    assert found.token_for("https://corp.test/npm/") == "test-token-not-real"
    assert found.token_for("https://main.test/") is None
    assert "test-token-not-real" not in repr(found)


async def test_non_http_registries_are_skipped(home: Path, project: Path) -> None:
    write(project / ".npmrc", "registry=file:///srv/npm\n")
    write(home / ".npmrc", "registry=https://user.test/\n")
    found = await discover_npm_registry(base_env(home, OCTO_NPM_REGISTRY="/local/dir"), project)
    assert found is not None and found.url == "https://user.test/"


async def test_npm_itself_is_asked_last(home: Path, project: Path, tmp_path: Path) -> None:
    bin_dir = fake_command(tmp_path / "bin", "npm", "https://from-npm.test/")
    found = await discover_npm_registry(base_env(home, PATH=bin_dir), project)
    assert found is not None
    assert (found.url, found.source) == ("https://from-npm.test/", "npm config get registry")


async def test_nothing_configured(home: Path, project: Path) -> None:
    assert await discover_npm_registry(base_env(home), project) is None


def test_parse_npmrc() -> None:
    text = "# c\n;c\nkey = 'quoted'\nempty=\nurl=${A}/x\nnot a pair\n"
    assert parse_npmrc(text, {"A": "https://a.test"}) == {
        "key": "quoted",
        "empty": "",
        "url": "https://a.test/x",
    }


# Python


async def test_python_variables_in_order(home: Path, project: Path) -> None:
    env = base_env(
        home,
        PIP_INDEX_URL="file:///opt/pypi/simple",
        UV_INDEX_URL="https://uv.test/simple",
        UV_DEFAULT_INDEX="https://uv-default.test/simple",
    )
    found = await discover_python_index(env, project)
    assert found == PythonIndex("https://uv.test/simple/", "UV_INDEX_URL")
    env["OCTO_PYPI_INDEX"] = "https://octo.test/simple"
    found = await discover_python_index(env, project)
    assert found == PythonIndex("https://octo.test/simple/", "OCTO_PYPI_INDEX")


async def test_pip_config_files(home: Path, project: Path, tmp_path: Path) -> None:
    xdg = tmp_path / "xdg"
    write(
        xdg / "pip" / "pip.conf",
        "[global]\nextra-index-url = file:///opt/pypi/simple file:///opt/more/simple\n",
    )
    env = base_env(home, XDG_CONFIG_DIRS=str(xdg))
    # Only file:// indexes and nothing else: pip's default is asked (no python on PATH here).
    assert await discover_python_index(env, project) is None

    user = write(
        home / ".config" / "pip" / "pip.conf", "[install]\nindex-url = https://user.test/simple\n"
    )
    found = await discover_python_index(env, project)
    assert found == PythonIndex("https://user.test/simple/", str(user))

    chosen = write(tmp_path / "chosen.conf", "[global]\nindex-url = https://chosen.test/simple/\n")
    found = await discover_python_index({**env, "PIP_CONFIG_FILE": str(chosen)}, project)
    assert found == PythonIndex("https://chosen.test/simple/", str(chosen))


async def test_pip_default_index_comes_from_pip(home: Path, project: Path) -> None:
    # The interpreter running the tests: its pip knows the default index.
    python_dir = os.path.dirname(sys.executable)
    found = await discover_python_index(base_env(home, PATH=python_dir), project)
    if found is None:
        pytest.skip("the python3 on PATH has no pip")
    assert found.source == "pip's default index"
    assert is_http_url(found.simple_url) and found.simple_url.endswith("/simple/")
    assert found.json_api_url.endswith("/pypi")


def test_json_api_url_of_an_index() -> None:
    assert PythonIndex("https://i.test/simple/", "x").json_api_url == "https://i.test/pypi"
    assert (
        PythonIndex("https://i.test/repository/py/simple/", "x").json_api_url
        == "https://i.test/repository/py/pypi"
    )
    assert (
        PythonIndex("https://i.test/root/+simple/", "x").json_api_url == "https://i.test/root/pypi"
    )
    assert PythonIndex("https://i.test/", "x").json_api_url == "https://i.test/pypi"


async def test_npm_discovery_order_exactly_as_configured(
    home: Path, project: Path, tmp_path: Path
) -> None:
    write(project / ".npmrc", "registry=https://project.test/\n")
    write(home / ".npmrc", "registry=https://user.test/\n")
    global_rc = write(tmp_path / "global" / "npmrc", "registry=https://global.test/\n")
    env = base_env(
        home,
        OCTO_NPM_REGISTRY="https://octo.test/",
        NPM_CONFIG_REGISTRY="https://env.test/",
        NPM_CONFIG_GLOBALCONFIG=str(global_rc),
        PATH=fake_command(tmp_path / "bin", "npm", "https://from-npm.test/"),
    )
    expected = [
        ("https://octo.test/", "OCTO_NPM_REGISTRY"),
        ("https://env.test/", "NPM_CONFIG_REGISTRY"),
        ("https://project.test/", str(project / ".npmrc")),
        ("https://user.test/", str(home / ".npmrc")),
        ("https://global.test/", str(global_rc)),
        ("https://from-npm.test/", "npm config get registry"),
    ]
    removals: list[Callable[[], object]] = [
        lambda: env.pop("OCTO_NPM_REGISTRY"),
        lambda: env.pop("NPM_CONFIG_REGISTRY"),
        (project / ".npmrc").unlink,
        (home / ".npmrc").unlink,
        global_rc.unlink,
    ]
    for step, (url, source) in enumerate(expected):
        found = await discover_npm_registry(env, project)
        assert found is not None and (found.url, found.source) == (url, source), step
        if step < len(removals):
            removals[step]()


async def test_python_discovery_order_exactly_as_configured(
    home: Path, project: Path, tmp_path: Path
) -> None:
    venv = tmp_path / "venv"
    chosen = write(tmp_path / "chosen.conf", "[global]\nindex-url = https://chosen.test/simple\n")
    site = write(venv / "pip.conf", "[global]\nindex-url = https://site.test/simple\n")
    user = write(
        home / ".config" / "pip" / "pip.conf", "[global]\nindex-url = https://user.test/simple\n"
    )
    legacy = write(home / ".pip" / "pip.conf", "[global]\nindex-url = https://legacy.test/simple\n")
    xdg = write(
        tmp_path / "xdg" / "pip" / "pip.conf", "[global]\nindex-url = https://xdg.test/simple\n"
    )
    env = base_env(
        home,
        OCTO_PYPI_INDEX="https://octo.test/simple",
        PIP_INDEX_URL="https://pip.test/simple",
        UV_INDEX_URL="https://uv.test/simple",
        UV_DEFAULT_INDEX="https://uv-default.test/simple",
        PIP_CONFIG_FILE=str(chosen),
        VIRTUAL_ENV=str(venv),
        XDG_CONFIG_DIRS=str(tmp_path / "xdg"),
        PATH=fake_command(tmp_path / "bin", "python3", "https://pip-default.test/simple/"),
    )
    expected = [
        ("octo", "OCTO_PYPI_INDEX"),
        ("pip", "PIP_INDEX_URL"),
        ("uv", "UV_INDEX_URL"),
        ("uv-default", "UV_DEFAULT_INDEX"),
        ("chosen", str(chosen)),
        ("site", str(site)),
        ("user", str(user)),
        ("legacy", str(legacy)),
        ("xdg", str(xdg)),
        ("pip-default", "pip's default index"),
    ]
    removals: list[Callable[[], object]] = [
        lambda: env.pop("OCTO_PYPI_INDEX"),
        lambda: env.pop("PIP_INDEX_URL"),
        lambda: env.pop("UV_INDEX_URL"),
        lambda: env.pop("UV_DEFAULT_INDEX"),
        chosen.unlink,
        site.unlink,
        user.unlink,
        legacy.unlink,
        xdg.unlink,
    ]
    for step, (host, source) in enumerate(expected):
        found = await discover_python_index(env, project)
        assert found == PythonIndex(f"https://{host}.test/simple/", source), step
        if step < len(removals):
            removals[step]()


async def test_any_index_url_beats_a_later_files_extra_index(
    home: Path, project: Path, tmp_path: Path
) -> None:
    write(tmp_path / "xdg" / "pip" / "pip.conf", "[global]\nindex-url = https://main.test/simple\n")
    write(
        home / ".config" / "pip" / "pip.conf",
        "[global]\nextra-index-url = https://extra.test/simple\n",
    )
    found = await discover_python_index(
        base_env(home, XDG_CONFIG_DIRS=str(tmp_path / "xdg")), project
    )
    assert found is not None and found.simple_url == "https://main.test/simple/"


async def test_credentials_in_an_index_url_are_kept_apart(home: Path, project: Path) -> None:
    env = base_env(home, PIP_INDEX_URL="https://reader:s%40cret@pypi.test/simple")
    found = await discover_python_index(env, project)
    assert found is not None and found.simple_url == "https://pypi.test/simple/"
    assert found.credentials == ("reader", "s@cret")
    assert "cret" not in repr(found)


# Discovery and the event loop


async def test_configuration_files_are_read_off_the_event_loop(home: Path, project: Path) -> None:
    # A FIFO as .npmrc: reading it waits until a writer shows up. Read on the event loop,
    # it would freeze every other task meanwhile; read in a worker thread, they go on.
    npmrc = project / ".npmrc"
    os.mkfifo(npmrc)

    def write_later() -> None:  # a plain thread: a frozen event loop cannot hold it up
        time.sleep(0.5)
        with npmrc.open("w", encoding="utf-8") as fifo:
            fifo.write("registry=https://fifo.test/\n")

    threading.Thread(target=write_later, daemon=True).start()
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await anyio.sleep(0.02)

    async with anyio.create_task_group() as tg:
        tg.start_soon(tick)
        found = await discover_npm_registry(base_env(home), project)
        tg.cancel_scope.cancel()
    assert found is not None and found.url == "https://fifo.test/"
    assert ticks >= 10


async def test_npm_is_asked_without_credentials_in_its_environment(
    home: Path, project: Path, tmp_path: Path
) -> None:
    npm = write(
        tmp_path / "bin" / "npm", '#!/bin/sh\necho "https://${NPM_TOKEN:-no-token}.test/"\n'
    )
    npm.chmod(npm.stat().st_mode | stat.S_IEXEC)
    env = base_env(home, PATH=str(npm.parent), NPM_TOKEN="token-not-real")
    found = await discover_npm_registry(env, project)
    assert found is not None and found.url == "https://no-token.test/"
