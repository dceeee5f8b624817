"""The secret values of a workspace's files are known to every LSP answer about it, at the
cost of the few its texts hold: indexed once per state of the workspace's files, and only
the values a text holds (whole, escaped or cut) enter the call's pattern."""

from __future__ import annotations

import json
from pathlib import Path

from octo.core.concurrency import RankedLimiter
from octo.core.secrets.redaction import call_secrets
from octo.core.secrets.redaction import redacted
from octo.lsp.guards.workspace_values import _LISTED
from octo.lsp.guards.workspace_values import learn_workspace
from octo.lsp.guards.workspace_values import workspace_index
from octo.transports.ripgrep import RgPlace
from tests.security.planted import _chars

PLACE = RgPlace(RankedLimiter(4), None)

#: One value per module, as a workspace of many flagged files holds them.
VALUES = [_chars(f"workspace-{number}", 20) + f"-{number}" for number in range(300)]
#: A value written escaped in its file, shown unescaped or escaped again by an answer.
ODD = 'q"w\\e' + _chars("odd", 20)


def _workspace(root: Path) -> Path:
    for number, value in enumerate(VALUES):
        (root / f"module_{number}.py").write_text(f'API_KEY = "{value}"\n')
    (root / "odd.py").write_text(f'API_SECRET = "{json.dumps(ODD)[1:-1]}"\n')
    return root


async def test_a_call_learns_only_the_workspace_values_its_texts_hold(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    value = VALUES[7]
    texts = [
        f'Literal["{value}"]',
        json.dumps({"default": ODD}),
        repr(ODD),
        f"the hover was cut here: {value[:9]}...",
        f"{value[-9:]} and the rest of a page",
        "a text that holds no value at all",
    ]
    with call_secrets() as known:
        await learn_workspace(root, root, PLACE)
        out = redacted(texts)
        # The call's pattern: the forms of the two values its texts hold, not 301 files'.
        learned = set(known._kinds)
    assert all(value[:8] not in text and value[-8:] not in text for text in out), out
    assert all(ODD[5:13] not in text for text in out), out
    assert out[-1] == texts[-1]
    assert {form for form in learned if value not in form and ODD[5:] not in form} == set()
    # Outside a call nothing changes: the values were hidden as the workspace's.
    assert redacted(texts) == texts


async def test_a_workspace_is_indexed_once_per_state_of_its_files(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    first = await workspace_index(root, root, PLACE)
    assert await workspace_index(root, root, PLACE) is first
    changed = _chars("changed", 24)
    (root / "module_3.py").write_text(f'API_KEY = "{changed}"\n')
    second = await workspace_index(root, root, PLACE)
    assert second is not first
    assert second.held_by(f"x {changed} y") == {changed: "secret"}
    assert first.held_by(f"x {changed} y") == {}
    assert await workspace_index(root, root, PLACE) is second


async def test_a_listed_file_without_values_is_checked_with_the_next_listing(
    tmp_path: Path,
) -> None:
    """A file the prefilter lists that holds no value to hide is stat'ed again with the
    next listing, as a file new to the listing is; the same files listed again keep the
    index."""
    root = _workspace(tmp_path)
    notes = root / "notes.py"
    notes.write_text('API_KEY = os.environ["API_KEY"]\n')
    first = await workspace_index(root, root, PLACE)
    _LISTED.clear()  # the listing expired: rg lists the workspace again
    assert await workspace_index(root, root, PLACE) is first
    added = _chars("added", 24)
    notes.write_text(f'API_KEY = "{added}"\n')
    assert await workspace_index(root, root, PLACE) is first
    _LISTED.clear()
    assert (await workspace_index(root, root, PLACE)).held_by(added) == {added: "secret"}
