"""A gateway whose cache directory is the test's own (graphs are kept on disk there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from octo.core.config import Config


@pytest.fixture
def config(tmp_path: Path) -> Config:
    """Defaults, with octo's cache directory under the test's folder."""
    return Config(env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
