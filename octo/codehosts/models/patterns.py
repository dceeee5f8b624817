"""What a query's free-form string fields must look like: a git ref, a commit sha, a host
name, a date or a date range. Checked as a query is validated, so a value that does not fit
is a VALIDATION_ERROR naming its field, before any request is made."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator
from pydantic import ValidationInfo

from octo.core.queries import as_written


def matching(pattern: re.Pattern[str], what: str) -> AfterValidator:
    """The check that a field's value matches ``pattern``; else ValueError ``{field}:
    '{value}' is not {what}``."""

    def check(value: str, info: ValidationInfo) -> str:
        if not pattern.match(value):
            raise ValueError(f"{info.field_name}: '{as_written(value[:60])}' is not {what}")
        return value

    return AfterValidator(check)


#: A branch, tag or commit: no spaces, no control characters, no "..", and no "-" first
#: (a local git would read it as an option).
GitRef = Annotated[
    str,
    matching(
        re.compile(r"^(?!-)(?!.*\.\.)[^\s\x00-\x1f~^:?*\[\\]{1,255}$"),
        "a branch, tag or commit sha",
    ),
]
#: A commit's sha, whole or abbreviated.
CommitSha = Annotated[str, matching(re.compile(r"^[0-9a-fA-F]{7,40}$"), "a commit sha")]
#: A host name: letters, digits, dots, dashes, an optional port.
HostName = Annotated[str, matching(re.compile(r"^[A-Za-z0-9.-]{1,253}(:\d{1,5})?$"), "a host name")]
#: A date or date range as GitHub's search syntax writes it: ">=2024-06-01", "A..B".
DateRange = Annotated[
    str,
    matching(
        re.compile(r"^(?:[<>]=?)?[0-9TZ:+.-]{10,25}(?:\.\.[0-9TZ:+.-]{10,25})?$"),
        'a date or range, e.g. ">=2024-06-01" or "A..B"',
    ),
]
