"""A project's own configuration cannot point a language server outside the allowed roots
(issue 31): ``extraPaths`` in pyrightconfig.json or ``[tool.ty.environment] extra-paths`` in
pyproject.toml aimed at an outside folder let lspHover show its constants and
lspGotoDefinition name its path. Servers run with octo's search paths, and an answer that
names a file outside the roots is left out with a note. Real ty and basedpyright."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from octo import Gateway
from octo.core.config import Config
from octo.core.errors import LspNotAvailableError
from octo.lsp.servers.table.commands import find_servers
from tests.lsp.conftest import lsp_env
from tests.lsp.conftest import result_of

# Real language servers start and index: seconds each.
pytestmark = pytest.mark.slow

#: Built at run time: the value must never come back.
VALUE = "outside-" + "only-value-7f3a"
MAIN = "from secret_mod import SECRET_CONST\n\nprint(SECRET_CONST)\n"

CONFIGS: dict[str, dict[str, str]] = {
    "ty in pyproject": {
        "pyproject.toml": '[project]\nname = "p"\n\n[tool.ty.environment]\nextra-paths = ["{out}"]\n'
    },
    "pyright in pyrightconfig": {
        "pyproject.toml": '[project]\nname = "p"\n',
        "pyrightconfig.json": '{{"extraPaths": ["{out}"]}}',
    },
    "basedpyright in pyproject": {
        "pyproject.toml": '[project]\nname = "p"\n\n[tool.basedpyright]\nextraPaths = ["{out}"]\n'
    },
}


def _server(name: str) -> str | None:
    try:
        servers = find_servers("python", lsp_env(OCTO_LSP_PYTHON_SERVERS=name))
    except LspNotAvailableError:
        return None
    return servers[0].server_id


def _project(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Path]:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret_mod.py").write_text(f'SECRET_CONST = "{VALUE}"\n')
    root = tmp_path / "project"
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text.format(out=str(outside)))
    (root / "main.py").write_text(MAIN)
    return root, outside


@pytest.mark.parametrize("server", ["ty", "basedpyright"])
@pytest.mark.parametrize("config", sorted(CONFIGS))
async def test_outside_search_paths_show_nothing(server: str, config: str, tmp_path: Path) -> None:
    if _server(server) != server:
        pytest.skip(f"{server} is not installed")
    root, outside = _project(tmp_path, CONFIGS[config])
    env = lsp_env(OCTO_LSP_PYTHON_SERVERS=server)
    async with Gateway(Config.from_env(env), roots=[root]) as gateway:
        answers: list[dict[str, Any]] = []
        for tool in ("lspHover", "lspGotoDefinition"):
            for line in (1, 3):
                query = {
                    "uri": str(root / "main.py"),
                    "symbolName": "SECRET_CONST",
                    "lineHint": line,
                }
                answers.append(result_of(await gateway.call(tool, [query])))
        diagnostics = result_of(await gateway.call("lspDiagnostics", [{"uri": str(root)}]))
    for answer in [*answers, diagnostics]:
        text = str(answer)
        assert VALUE not in text, answer
        assert str(outside) not in text, answer
        assert "secret_mod.py" not in text, answer


@pytest.mark.parametrize("server", ["ty", "basedpyright"])
async def test_answers_naming_outside_files_are_left_out(server: str, tmp_path: Path) -> None:
    # A folder inside the root that is a link to one outside it: the server reads it, octo
    # leaves out what it says of those files, with a note.
    if _server(server) != server:
        pytest.skip(f"{server} is not installed")
    root, outside = _project(tmp_path, {"pyproject.toml": '[project]\nname = "p"\n'})
    (root / "linked").symlink_to(outside, target_is_directory=True)
    (root / "main.py").write_text(MAIN.replace("from secret_mod", "from linked.secret_mod"))
    env = lsp_env(OCTO_LSP_PYTHON_SERVERS=server)
    async with Gateway(Config.from_env(env), roots=[root]) as gateway:
        answers = [
            result_of(
                await gateway.call(
                    tool,
                    [{"uri": str(root / "main.py"), "symbolName": "SECRET_CONST", "lineHint": 3}],
                )
            )
            for tool in ("lspHover", "lspGotoDefinition", "lspFindReferences")
        ]
    hover, definition, _references = answers
    for answer in answers:
        assert VALUE not in str(answer), answer
        assert "secret_mod.py" not in str(answer), answer
    assert any("outside the allowed roots" in hint for hint in hover["hints"]), hover
    assert any("outside the allowed roots" in hint for hint in definition["hints"]), definition
