"""Concurrent key mints sharing one ``Idempotency-Key``: one key is created, never two.

Every answer is either the one minted key (201, the same id and raw key each time) or a
409 CONFLICT while the first attempt is still running; the key list then shows exactly one
key, and that key works on the read plane.
"""

from __future__ import annotations

import json
import time

import pytest

from tests.support.load import (
    Shot,
    bearer,
    burst,
    new_workspace,
    owner_on_plan,
    received,
    shoot,
    warm,
)
from tests.support.runner import LocalService, portal

pytestmark = pytest.mark.load

CLIENTS = 10


def test_one_idempotency_key_mints_one_key(service: LocalService) -> None:
    owner = owner_on_plan(service, "load.mint@example.org")
    workspace_id = new_workspace(service, owner, "Idempotent shop")
    path = f"/api/workspaces/{workspace_id}/keys"
    assert portal(service, "GET", path, owner.jwt).json()["keys"] == []
    headers = bearer(owner.jwt) | {"Content-Type": "application/json", "Idempotency-Key": "load-mint-0001"}
    body = json.dumps({"name": "website", "rateLimit": 120}).encode()

    def mint() -> Shot:
        return shoot(service.portal, "POST", path, headers=headers, body=body, timeout=60)

    warm(service.portal, [path], CLIENTS, method="POST")  # cold starts would spread the attempts out
    started = time.monotonic()
    shots = burst([mint] * CLIENTS, workers=CLIENTS, deadline_seconds=90)
    took = time.monotonic() - started
    minted = [s for s in shots if s.status == 201]
    print(f"\nidempotent mint: {CLIENTS} concurrent in {took:.2f}s: {len(minted)} x 201, "
          f"{sum(s.status == 409 for s in shots)} x 409")  # fmt: skip

    assert {s.status for s in received(shots)} <= {201, 409}, [(s.status, s.body) for s in shots]
    assert minted, "no attempt minted the key"
    keys = {(s.json()["key"]["id"], s.json()["key"]["key"]) for s in minted}
    assert len(keys) == 1, sorted(i for i, _ in keys)  # never two keys, nor one with two raw values (not printed)
    for conflict in (s for s in received(shots) if s.status == 409):
        assert (conflict.code(), set(conflict.json())) == ("CONFLICT", {"error", "code"})

    ((key_id, raw),) = keys
    listed = portal(service, "GET", path, owner.jwt).json()["keys"]
    assert [k["id"] for k in listed] == [key_id]
    whoami = shoot(service.brain, "GET", "/v1/agent/_whoami", headers=bearer(raw))
    assert (whoami.status, whoami.json()) == (200, {"workspaceId": workspace_id, "apiKeyId": key_id})

    # Once the first attempt has finished, a retry replays it: still that one key.
    again = mint()
    assert again.status == 201 and (again.json()["key"]["id"], again.json()["key"]["key"]) == (key_id, raw)
    assert len(portal(service, "GET", path, owner.jwt).json()["keys"]) == 1
