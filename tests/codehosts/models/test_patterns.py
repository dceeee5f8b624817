"""Every free-form field with a pattern refuses what does not fit, naming the field, before
any request: a ref no git accepts (one starting with "-" included, which a local git would
read as an option), a sha that is none, a host name or a date range that is none."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel
from pydantic import ValidationError

from octo.codehosts.clone.models import CloneRepoQuery
from octo.codehosts.models.ci import SearchWorkflowRunsQuery
from octo.codehosts.models.history import GetCommitQuery
from octo.codehosts.models.history import SearchCommitsQuery
from octo.codehosts.models.lines import FileBlameQuery
from octo.codehosts.models.lines import TraceLineQuery

REPO = {"owner": "o", "repo": "r"}
REFUSED: list[tuple[type[BaseModel], dict[str, Any], str]] = [
    (SearchCommitsQuery, {**REPO, "ref": "-x"}, "ref"),
    (GetCommitQuery, {**REPO, "sha": "--output=/tmp/x"}, "sha"),
    (GetCommitQuery, {**REPO, "base": "a..b", "head": "main"}, "base"),
    (CloneRepoQuery, {**REPO, "ref": "main branch"}, "ref"),
    (FileBlameQuery, {**REPO, "path": "a.py", "ref": "-p"}, "ref"),
    (TraceLineQuery, {"path": "a.py", "startLine": 1, "ref": "--output=/tmp/x"}, "ref"),
    (SearchWorkflowRunsQuery, {**REPO, "headSha": "not-a-sha"}, "headSha"),
    (SearchWorkflowRunsQuery, {**REPO, "host": "bad host"}, "host"),
    (SearchWorkflowRunsQuery, {**REPO, "created": "yesterday"}, "created"),
]


@pytest.mark.parametrize(("model", "fields", "name"), REFUSED)
def test_a_value_that_does_not_fit_is_refused_by_name(
    model: type[BaseModel], fields: dict[str, Any], name: str
) -> None:
    with pytest.raises(ValidationError) as refused:
        model(**fields)
    (error,) = refused.value.errors()
    assert error["loc"] == (name,)
    assert error["msg"].startswith(f"Value error, {name}: '")


def test_values_that_fit_pass() -> None:
    assert GetCommitQuery(owner="o", repo="r", base="v1.2.0", head="feature/x-1").base == "v1.2.0"
    run = SearchWorkflowRunsQuery(
        owner="o", repo="r", headSha="abc1234", host="ghe.test:8443", created=">=2024-06-01"
    )
    assert (run.headSha, run.host) == ("abc1234", "ghe.test:8443")
