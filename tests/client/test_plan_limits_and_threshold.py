"""``workspace-client`` and the owner's plan (issue 41, "The terminal keeps up"): ``publish --dry-run`` refuses what
the real upload would (a file over the plan's object size, files over its storage), in MB with the plan's name, as
the service's refusal does; and ``workspaces update`` sets and clears the low-credits threshold. The command runs
through ``main`` against a fake portal on ``httpx.MockTransport`` (the contract's JSON, with the ``plan`` every
``Workspace`` answer carries); the API itself has its own tests."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from workspace_client.bundle.plan import megabytes

from tests.support.bundles import FILES, write_bundle
from tests.support.fake_portal import Run, command_runner, use_fake_portal

WS, NOW, MIB = "ws_01JTEST", "2026-03-01T10:00:00.000Z", 1024 * 1024
FREE = {"name": "free", "maxObjectBytes": 25 * MIB, "maxStorageBytes": 500 * MIB}  # PLAN_LIMITS["free"]
JSON = dict[str, Any]


@dataclass
class Service:
    """The portal's answers for a workspace with no agent yet; ``calls`` the requests seen (method, path)."""

    plan: JSON = field(default_factory=lambda: dict(FREE))
    threshold: int | None = None
    calls: list[tuple[str, str]] = field(default_factory=list)
    bodies: list[JSON] = field(default_factory=list)

    def workspace(self) -> JSON:
        return {"id": WS, "name": "My studio", "slug": "my-studio", "type": "team", "origin": "portal",
                "ownerId": "usr_ava", "createdAt": NOW,
                "storageConfig": {"type": "s3", "bucket": "b", "prefix": f"workspaces/{WS}/"}, "wrapConfig": {},
                "defaultWorkflowId": None, "defaultBrandId": "brd_1", "listed": False, "storeConversations": False,
                "conversationRetentionDays": None, "lowCreditsThreshold": self.threshold, "plan": self.plan,
                "updatedAt": NOW}  # fmt: skip

    def answer(self, request: httpx.Request) -> httpx.Response:
        path, method = request.url.path, request.method
        self.calls.append((method, path))
        if (method, path) == ("GET", f"/api/workspaces/{WS}"):
            return httpx.Response(200, json={"workspace": self.workspace()})
        if (method, path) == ("PATCH", f"/api/workspaces/{WS}"):
            body = json.loads(request.content)
            self.bodies.append(body)
            self.threshold = body.get("lowCreditsThreshold", self.threshold)
            return httpx.Response(200, json={"workspace": self.workspace()})
        if (method, path) == ("GET", f"/api/workspaces/{WS}/agents"):
            return httpx.Response(200, json={"agents": [], "nextCursor": None})
        if (method, path) == ("GET", f"/api/workspaces/{WS}/brands"):
            brand = {"id": "brd_1", "slug": "shop", "name": "Shop", "isDefault": True, "palette": [],
                     "fontFamily": "", "createdAt": NOW, "updatedAt": NOW}  # fmt: skip
            return httpx.Response(200, json=[brand])
        return httpx.Response(404, json={"error": f"no route {method} {path}", "code": "NOT_FOUND"})


@pytest.fixture
def service(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Service:
    fake = Service()
    use_fake_portal(monkeypatch, tmp_path, fake.answer)
    return fake


@pytest.fixture
def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], service: Service) -> Run:
    return command_runner(tmp_path, capsys)


def bundle(root: Path, files: dict[str, bytes]) -> Path:
    """A bundle of the usual files and ``files`` (media no post or item names), for a new agent."""
    return write_bundle(root, files=files, posts_json=None, items_json=None, wrap_json=None, site_json=None,
                        suggestions_json=None)  # fmt: skip


def test_megabytes_say_sizes_as_the_service_does() -> None:
    assert [megabytes(n) for n in (int(31.5 * MIB), 25 * MIB, MIB // 10, MIB // 10 - 1, 0)] == [
        "31.5 MB", "25.0 MB", "0.1 MB", "104856 bytes", "0 bytes",
    ]  # fmt: skip


def test_a_dry_run_refuses_a_file_over_the_plans_object_size(run: Run, service: Service, tmp_path: Path) -> None:
    """The issue's case: a 31.5 MB file, which the free plan's 25 MB object size refuses when it is signed."""
    folder = bundle(tmp_path / "b", {"media/big.mp4": b"\0" * int(31.5 * MIB), "media/small.jpg": b"\xff\xd8" * 10})
    status, out, err = run("publish", str(folder), "--workspace", WS, "--dry-run")
    assert status == 1 and out == ""
    assert "media/big.mp4: 31.5 MB is over the free plan's object size of 25.0 MB" in err
    assert "small.jpg" not in err and "set-plan" in err
    assert ("GET", f"/api/workspaces/{WS}") in service.calls
    assert {method for method, _ in service.calls} == {"GET"}  # a dry run writes nothing, refused or not


def test_a_dry_run_refuses_files_over_the_plans_storage(run: Run, service: Service, tmp_path: Path) -> None:
    service.plan = {"name": "tiny", "maxObjectBytes": 400_000, "maxStorageBytes": 500_000}
    extra = {f"media/{n}.mp4": bytes([n]) * 300_000 for n in range(2)}  # each under the object size
    folder = bundle(tmp_path / "b", extra)
    total = sum(len(data) for data in (FILES | extra).values())  # the bundle's files: all of the agent's folder
    status, out, err = run("publish", str(folder), "--workspace", WS, "--dry-run")
    assert status == 1 and out == ""
    assert f"would take the workspace to at least {megabytes(total)}, over the tiny plan's storage of 0.5 MB" in err
    assert megabytes(total) == "1.0 MB"


def test_a_dry_run_within_the_plan_prints_the_plan(run: Run, service: Service, tmp_path: Path) -> None:
    folder = bundle(tmp_path / "b", {"media/ok.mp4": b"\0" * (25 * MIB)})  # exactly the object size: taken
    status, out, err = run("publish", str(folder), "--workspace", WS, "--dry-run")
    assert status == 0, err
    assert "upload" in out and "media/ok.mp4" in out


def test_the_low_credits_threshold_is_set_and_cleared(run: Run, service: Service) -> None:
    status, out, err = run("workspaces", "update", "--workspace", WS, "--low-credits-threshold", "50")
    assert status == 0, err
    assert service.bodies == [{"lowCreditsThreshold": 50}] and "lowCreditsThreshold\t50" in out
    status, out, err = run("workspaces", "update", "--workspace", WS, "--no-low-credits-threshold")
    assert status == 0, err
    assert service.bodies[-1] == {"lowCreditsThreshold": None}  # cleared: sent as null
    assert "lowCreditsThreshold\t(never)" in out
    with pytest.raises(SystemExit):  # both at once: argparse refuses them
        run("workspaces", "update", "--workspace", WS, "--low-credits-threshold", "5", "--no-low-credits-threshold")
