"""``python -m ops smoke`` against a local runner of its own: every check passes, and the cleanup leaves the stored
state exactly as it found it, also when a check fails (every table's items and every object version compared)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from ops.smoke import portal_checks, running_local, smoke
from ops.smoke.context import Smoke
from stack.template import ROOT
from tests.support.runner import LocalService, knowledge_settled, started_service

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    """A runner of this module's own: the state comparison needs nobody else writing meanwhile."""
    yield from started_service(tmp_path_factory.mktemp("smoke-state"))


def stored(service: LocalService) -> dict[str, Any]:
    """Every item of every table and every object version of every bucket (a runner's state is small), once the
    knowledge worker has done what the writes so far queued."""
    knowledge_settled(service)
    dynamodb, s3 = service.aws("dynamodb"), service.aws("s3")
    state: dict[str, Any] = {}
    for table in dynamodb.list_tables()["TableNames"]:
        state[table] = sorted(json.dumps(item, sort_keys=True) for item in service.table_items(table))
    for bucket in s3.list_buckets()["Buckets"]:
        pages = s3.get_paginator("list_object_versions").paginate(Bucket=bucket["Name"])
        found = [
            (v["Key"], v["VersionId"])
            for page in pages
            for v in page.get("Versions", []) + page.get("DeleteMarkers", [])
        ]
        state[bucket["Name"]] = sorted(found)
    return state


def test_the_command_checks_both_planes_and_leaves_nothing(service: LocalService) -> None:
    """``python -m ops --state-dir … smoke``, as ``make smoke`` runs it: it finds the running runner, exits 0."""
    before = stored(service)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env["PYTHONPATH"] = f"{ROOT / 'layers' / 'common'}:{ROOT}"
    done = subprocess.run([sys.executable, "-m", "ops", "--state-dir", str(service.state_dir), "smoke"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"smoke against local: portal {service.portal}, brain {service.brain}")
    results = [line for line in lines if line.startswith(("ok ", "FAIL"))]
    assert len(results) >= 55 and all(line.startswith("ok ") for line in results), done.stdout
    for name in ("brain POST …/chat (streamed NDJSON)", "brain GET /v1/r2 with Range → 206",
                 "brain GET /v1/r2 with If-None-Match → 304", "brain POST /v1/media-urls, then the signed URL",
                 "brain error: a bad key → 401", "cleanup: nothing left"):  # fmt: skip
        assert any(line.endswith(f"  {name}") for line in results), name
    assert lines[-1].startswith(f"smoke: {len(results)}/{len(results)} checks ok in ")
    assert stored(service) == before


def test_a_failing_check_still_cleans_everything_up(service: LocalService, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failing step right after the publication (so the cheapest run that has made everything): the checks stop,
    the cleanup runs, and the state is as before."""
    target = running_local(service.state_dir)
    assert target is not None
    before = stored(service)
    seen: dict[str, Any] = {}

    def failing(run: Smoke) -> None:
        seen["stored"] = stored(service)  # mid-run: the run's user, workspace, agent and objects are there
        raise AssertionError("injected failure")

    monkeypatch.setattr(portal_checks, "reads", lambda run: run.checks.step("injected: fails", lambda: failing(run)))
    out = io.StringIO()
    checks, footprint = smoke(target, out=out)
    assert [(r.name, r.detail) for r in checks.failed] == [("injected: fails", "AssertionError: injected failure")]
    names = [r.name for r in checks.results]
    assert names[-4:] == ["portal DELETE /api/workspaces/{id}", "portal POST /api/auth/logout (the session ends)",
                          "cleanup: remove everything the run created", "cleanup: nothing left"]  # fmt: skip
    assert "(stopped after the failed step injected: fails" in out.getvalue()
    assert out.getvalue().splitlines()[-1].startswith(f"smoke: {len(names) - 1}/{len(names)} checks ok in ")
    created = json.dumps(seen["stored"])
    assert footprint.user_id and footprint.user_id in created
    assert f"workspaces/{footprint.workspace_id}/projects/{footprint.agent_id}/media/photo.jpg" in created
    assert stored(service) == before
