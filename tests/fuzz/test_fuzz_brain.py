"""Schema fuzzing of the read plane with schemathesis: every operation, with and without a key.

Zero 5xx, and every response conforms to ``docs/openapi/brain.json`` as the runner serves it
(status codes, content types, headers, bodies; the chat's NDJSON line by line).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fuzz import STATELESS, fuzz
from tests.support.runner import LocalService, portal, sign_in, started_service

_DOCUMENT = Path(__file__).resolve().parents[2] / "docs" / "openapi" / "brain.json"
_METHODS = {"get", "put", "post", "delete", "patch", "head", "options"}
# Every operation the document publishes is fuzzed: a new route is covered without editing this file.
OPERATIONS = sum(m in _METHODS for item in json.loads(_DOCUMENT.read_text())["paths"].values() for m in item)

# The read plane has no links between its operations: it runs the stateless phases only.
pytestmark = [pytest.mark.fuzz, pytest.mark.skipif(not STATELESS, reason="FUZZ_PHASES has no stateless phase")]


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    yield from started_service(tmp_path_factory.mktemp("fuzz-brain"))


@pytest.fixture(scope="module")
def fuzz_key(service: LocalService) -> str:
    """A key of the first demo workspace with a limit the run never reaches (the limiter has its own tests)."""
    workspace = service.demo["workspaces"][0]
    _, jwt = sign_in(service, workspace["ownerEmail"])
    minted = portal(
        service, "POST", f"/api/workspaces/{workspace['id']}/keys", jwt, {"name": "fuzz", "rateLimit": 100_000}
    )
    assert minted.status == 201, minted.body
    return minted.json()["key"]["key"]


def test_every_brain_operation_conforms_with_a_key(service: LocalService, fuzz_key: str, tmp_path: Path) -> None:
    agent = service.demo["workspaces"][0]["agents"][0]["id"]
    run = fuzz(
        "brain-with-key", service.brain, tmp_path,
        headers={"Authorization": f"Bearer {fuzz_key}"}, parameters={"path.agentId": agent},
    )  # fmt: skip
    print(run.summary())
    assert run.operations == OPERATIONS and run.cases > 0
    assert run.failures == [], run.output[-6000:]


def test_every_brain_operation_conforms_without_credentials(service: LocalService, tmp_path: Path) -> None:
    agent = service.demo["workspaces"][0]["agents"][0]["id"]
    # Every answer is a 401: the coverage phase's boundary cases end by themselves (as the portal's anonymous run);
    # the fuzzing phase would spend the whole time bound on more 401s.
    run = fuzz("brain-anonymous", service.brain, tmp_path, parameters={"path.agentId": agent}, phases="coverage")
    print(run.summary())
    assert run.operations == OPERATIONS and run.cases > 0
    assert run.failures == [], run.output[-6000:]
