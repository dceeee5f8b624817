"""A file's language by the LSP's identifiers: what the LSP family opens each extension as,
and a shebang, a name or a first line where the extension says nothing."""

from __future__ import annotations

import pytest

from octo.core.files.languages import language_of
from octo.lsp.servers.table.commands import EXTENSIONS


def test_every_extension_the_lsp_family_opens_has_its_language_id() -> None:
    for extension, (_family, language_id) in EXTENSIONS.items():
        assert language_of(f"file{extension}") == language_id


@pytest.mark.parametrize(
    ("name", "first_line", "language"),
    [
        ("tool", "#!/usr/bin/env -S python3 -u", "python"),
        ("tool", "#!/usr/bin/python3.12", "python"),
        ("run", "#! /bin/bash -e", "shellscript"),
        ("serve", "#!/usr/bin/env NODE_ENV=production node", "javascript"),
        ("Dockerfile", "FROM alpine", "dockerfile"),
        ("index", "<?php echo 1;", "php"),
        ("App.PY", "", "python"),
        ("notes", "plain words", None),
        ("empty", "#!", None),
    ],
)
def test_names_and_first_lines(name: str, first_line: str, language: str | None) -> None:
    assert language_of(name, first_line) == language
