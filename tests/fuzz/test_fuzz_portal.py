"""Schema fuzzing of the management plane with schemathesis: every operation, with and without a portal JWT.

Zero 5xx, and every response conforms to ``docs/openapi/portal.json`` as the runner serves it.
The signed-in run leaves out the two operations that end what it runs on (sign-out and deleting
its workspace); the anonymous run covers them like every other operation.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fuzz import fuzz
from tests.support.runner import LocalService, portal, sign_in, started_service

pytestmark = pytest.mark.fuzz
OPERATIONS = 18
ENDS_THE_RUN = ("POST /api/auth/logout", "DELETE /api/workspaces/{workspaceId}")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    yield from started_service(tmp_path_factory.mktemp("fuzz-portal"))


@pytest.fixture(scope="module")
def signed_in(service: LocalService) -> dict[str, str]:
    """The demo owner's JWT and cookie, a workspace of its own and a key in it, for path parameters."""
    cookie, jwt = sign_in(service, service.demo["workspaces"][0]["ownerEmail"])
    created = portal(service, "POST", "/api/workspaces", jwt, {"name": "Fuzzing ground"})
    assert created.status == 201, created.body
    workspace = created.json()["workspace"]["id"] if "workspace" in created.json() else created.json()["id"]
    minted = portal(service, "POST", f"/api/workspaces/{workspace}/keys", jwt, {"name": "fuzzed"})
    assert minted.status == 201, minted.body
    return {"jwt": jwt, "cookie": cookie, "workspace": workspace, "key": minted.json()["key"]["id"]}


def test_every_portal_operation_conforms_signed_in(
    service: LocalService, signed_in: dict[str, str], tmp_path: Path
) -> None:
    run = fuzz(
        "portal-signed-in", service.portal, tmp_path,
        headers={"Authorization": f"Bearer {signed_in['jwt']}"},  # no cookie: negative cases must be able to drop it
        parameters={"path.workspaceId": signed_in["workspace"], "path.keyId": signed_in["key"]},
        exclude_operations=ENDS_THE_RUN,
    )  # fmt: skip
    print(run.summary())
    assert run.operations == OPERATIONS - len(ENDS_THE_RUN) and run.cases > 0
    assert run.failures == [], run.output[-6000:]


def test_every_portal_operation_conforms_without_credentials(service: LocalService, tmp_path: Path) -> None:
    run = fuzz("portal-anonymous", service.portal, tmp_path, max_time=30)
    print(run.summary())
    assert run.operations == OPERATIONS and run.cases > 0
    assert run.failures == [], run.output[-6000:]
