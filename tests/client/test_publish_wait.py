"""``publish`` waits for the documents it changed to be read (``bundle/indexing.py``, the command line's exit status),
on ``httpx.MockTransport``: a fake items listing whose ``index`` moves from poll to poll, a clock that the waits move.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from workspace_client import Portal
from workspace_client import cli as cli_module
from workspace_client._generated.models_portal import AgentItem
from workspace_client._model import ApiModel
from workspace_client.bundle import Bundle, Change, load_bundle, wait_for_index
from workspace_client.bundle.changes import CreateItem, Plan, ReplaceItem, UpdateItem, Upload
from workspace_client.bundle.format import ItemSpec
from workspace_client.bundle.indexing import (
    MAX_DELAY,
    IndexReport,
    IndexState,
    Watched,
    index_of,
    settle,
    watched,
)
from workspace_client.bundle.session import Session, save
from workspace_client.cli import EXIT_DOCUMENT_FAILED, EXIT_STILL_PENDING, main, report_index

from tests.support.bundles import ITEMS, write_bundle

WS, AGENT = "ws_1", "prj_1"
ITEMS_PATH = f"/api/workspaces/{WS}/agents/{AGENT}/items"
OBJECTS_PATH = f"/api/workspaces/{WS}/objects"
UPLOADED_AT = "2026-03-01T10:00:05.000Z"  # S3's LastModified of the re-uploaded notes/faq.md
# The bundle's items (tests/support/bundles.py) and two more: a spreadsheet, and an inactive document.
MORE_ITEMS = [
    {"name": "Prices", "kind": "document", "file": "docs/prices.csv"},
    {"name": "Old", "kind": "document", "file": "docs/old.txt", "active": False},
]
MORE_FILES = {"docs/prices.csv": b"drink,price\nlatte,3.5\n", "docs/old.txt": b"old\n"}


def jwt() -> str:
    def part(document: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(document).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'HS256'})}.{part({'exp': int(time.time()) + 3600})}.signature"


def index(
    status: str,
    passages: int = 0,
    error: str | None = None,
    at: str = "2026-03-01T10:00:00.000Z",
    etag: str | None = None,
) -> dict[str, Any]:
    """An item's ``index``; an ``etag`` of None: pending, or (judged by time) a service older than the field."""
    return {"status": status, "passages": passages, "error": error, "updatedAt": at, "etag": etag}


def item(name: str, file: str, kind: str = "document", idx: dict[str, Any] | None = None, active: bool = True):
    listed = {
        "id": f"item_{name.lower()}", "name": name, "kind": kind, "r2Key": f"projects/{AGENT}/{file}",
        "mimeType": "application/pdf", "size": 10, "folder": "", "order": 0,
        "updatedAt": "2026-03-01T09:00:00.000Z", "origin": "upload", "active": active,
    }  # fmt: skip
    return listed | ({"index": idx} if idx is not None else {})


class FakePortal:
    """The items listing answers ``polls[n]`` at its n-th call (the last one again after the end); the objects
    listing gives the re-uploaded file's ``updatedAt``. Every request is recorded."""

    def __init__(self, polls: list[list[dict[str, Any]]]):
        self.polls = polls
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.url.path == ITEMS_PATH:
            polls = self.count(ITEMS_PATH)
            return httpx.Response(200, json={"items": self.polls[min(polls, len(self.polls)) - 1], "nextCursor": None})
        if request.url.path == OBJECTS_PATH:
            assert request.url.params["prefix"] == f"projects/{AGENT}/"
            stored = {"path": f"projects/{AGENT}/notes/faq.md", "size": 10, "contentType": "text/markdown",
                      "etag": '"e"', "updatedAt": UPLOADED_AT}  # fmt: skip
            return httpx.Response(200, json={"objects": [stored], "nextCursor": None})
        return httpx.Response(404, json={"error": "no such route here", "code": "NOT_FOUND"})

    def count(self, path: str) -> int:
        return sum(request.url.path == path for request in self.requests)

    def portal(self) -> Portal:
        return Portal("http://portal.test", token=jwt(), transport=httpx.MockTransport(self))


class Clock:
    """``time.monotonic`` and ``time.sleep`` for the wait: sleeping moves the clock, and is recorded."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def bundle_dir(tmp_path: Path) -> Path:
    return write_bundle(tmp_path / "bundle", items_json=[*ITEMS, *MORE_ITEMS], files=MORE_FILES)


def plan_of(bundle_dir: Path, *changes: Callable[[Bundle], Change]) -> Plan:
    """A carried-out plan of the bundle, with ``changes`` made from it (``created("Menu")``, ``uploaded(path)``)."""
    bundle = load_bundle(bundle_dir)
    return Plan(WS, bundle, AGENT, "wf_1", [change(bundle) for change in changes])


def spec(bundle: Bundle, name: str) -> ItemSpec:
    return next(entry for entry in bundle.items if entry.name == name)


def created(name: str) -> Callable[[Bundle], Change]:
    return lambda bundle: CreateItem(spec(bundle, name), f"key-{name}")


def uploaded(path: str) -> Callable[[Bundle], Change]:
    return lambda bundle: Upload(bundle.files[path])


def test_only_the_documents_a_publish_changed_are_watched(bundle_dir: Path) -> None:
    plan = plan_of(
        bundle_dir,
        created("Menu"),  # a document created
        created("Hero"),  # an image: never read, not waited for
        created("Old"),  # inactive: not read
        lambda bundle: ReplaceItem("item_prices", spec(bundle, "Prices"), "key"),
        uploaded("notes/faq.md"),  # the FAQ's file replaced at the same path: its item unchanged
        uploaded("media/a.jpg"),  # the Hero's
        lambda bundle: UpdateItem("item_gone", "docs/gone.pdf", {"active": False}),  # an item the bundle dropped
    )
    assert [(entry.name, entry.path, entry.uploaded) for entry in watched(plan)] == [
        ("Menu", "docs/menu.pdf", False),
        ("FAQ", "notes/faq.md", True),
        ("Prices", "docs/prices.csv", False),
    ]


def test_the_wait_ends_when_none_is_pending_with_one_listing_per_poll(bundle_dir: Path) -> None:
    plan = plan_of(bundle_dir, created("Menu"), created("Prices"), created("Hero"))
    hero = item("Hero", "media/a.jpg", "image", index("skipped"))
    fake = FakePortal([
        [item("Menu", "docs/menu.pdf", idx=index("pending")), item("Prices", "docs/prices.csv", idx=index("pending")),
         hero],
        [item("Menu", "docs/menu.pdf", idx=index("indexed", 12)),
         item("Prices", "docs/prices.csv", idx=index("pending")), hero],
        [item("Menu", "docs/menu.pdf", idx=index("indexed", 12)),
         item("Prices", "docs/prices.csv", idx=index("failed", error="The file is encrypted: upload it without a "
                                                                   "password.")), hero],
    ])  # fmt: skip
    clock = Clock()
    report = wait_for_index(fake.portal(), plan, AGENT, progress=False, sleep=clock.sleep, clock=clock)
    assert [(doc.name, doc.passages) for doc in report.indexed] == [("Menu", 12)]
    assert [(doc.name, doc.path, doc.error) for doc in report.failed] == [
        ("Prices", "docs/prices.csv", "The file is encrypted: upload it without a password.")
    ]
    assert not report.pending and report.seconds == pytest.approx(1.25)
    assert fake.count(ITEMS_PATH) == 3 and fake.count(OBJECTS_PATH) == 0  # nothing uploaded: no object listing
    assert [request.url.path for request in fake.requests] == [ITEMS_PATH] * 3  # never one call per item
    assert clock.sleeps == [0.5, 0.75]  # the first poll at once, then backing off
    assert report.summary() == "documents: 1 indexed (12 passages), 1 failed"


def test_a_service_without_index_etags_has_a_reuploaded_file_judged_by_time(bundle_dir: Path) -> None:
    plan = plan_of(bundle_dir, uploaded("notes/faq.md"))
    before, after = "2026-03-01T10:00:04.999Z", "2026-03-01T10:00:06.250+00:00"
    fake = FakePortal([
        [item("FAQ", "notes/faq.md", "text", index("indexed", 3, at=before))],  # the previous file's status
        [item("FAQ", "notes/faq.md", "text", index("indexed", 4, at=after))],  # read again after the upload
    ])  # fmt: skip
    clock = Clock()
    report = wait_for_index(fake.portal(), plan, AGENT, progress=False, sleep=clock.sleep, clock=clock)
    assert [(doc.name, doc.status, doc.passages) for doc in report.documents] == [("FAQ", "indexed", 4)]
    assert fake.count(OBJECTS_PATH) == 1 and fake.count(ITEMS_PATH) == 2 and clock.sleeps == [0.5]


def test_a_file_uploaded_in_the_second_of_the_previous_read_waits_for_its_own_etag(bundle_dir: Path) -> None:
    """S3 dates an object to the second: an upload at 10:00:05.400 lists as 10:00:05.000, before a read of the
    previous file at 10:00:05.098. Only the ETag the service read tells the two files apart."""
    plan = plan_of(bundle_dir, uploaded("notes/faq.md"))
    previous = index("indexed", 3, at="2026-03-01T10:00:05.098Z", etag='"d"')  # not older than UPLOADED_AT
    fake = FakePortal([
        [item("FAQ", "notes/faq.md", "text", previous)],
        [item("FAQ", "notes/faq.md", "text", index("indexed", 4, at="2026-03-01T10:00:05.700Z", etag='"e"'))],
    ])  # fmt: skip
    clock = Clock()
    report = wait_for_index(fake.portal(), plan, AGENT, progress=False, sleep=clock.sleep, clock=clock)
    assert [(doc.name, doc.status, doc.passages) for doc in report.documents] == [("FAQ", "indexed", 4)]
    assert fake.count(ITEMS_PATH) == 2 and clock.sleeps == [0.5]  # the previous file's state was not taken


def test_what_is_still_pending_at_the_bound_is_reported_pending(bundle_dir: Path) -> None:
    plan = plan_of(bundle_dir, created("Menu"), uploaded("notes/faq.md"))
    fake = FakePortal([[
        item("Menu", "docs/menu.pdf", idx=index("pending")),
        item("FAQ", "notes/faq.md", "text", index("indexed", 3, at="2026-03-01T10:00:00.000Z")),  # never read again
    ]])  # fmt: skip
    clock = Clock()
    report = wait_for_index(fake.portal(), plan, AGENT, timeout=30, progress=False, sleep=clock.sleep, clock=clock)
    assert [(doc.name, doc.status) for doc in report.pending] == [("Menu", "pending"), ("FAQ", "pending")]
    assert report.seconds == pytest.approx(30) and sum(clock.sleeps) == pytest.approx(30)
    assert max(clock.sleeps) == MAX_DELAY and clock.sleeps[:3] == [0.5, 0.75, 1.125]
    assert fake.count(ITEMS_PATH) == len(clock.sleeps) + 1  # a last poll at the bound
    assert report.summary() == "documents: 0 indexed (0 passages), 2 still pending after 30 s"


def test_a_service_that_reports_no_index_is_not_waited_for(capsys: pytest.CaptureFixture[str]) -> None:
    """An item without ``index`` (a service older than the feature; built unvalidated, so this holds whether or not
    the generated ``AgentItem`` has the field yet) is done at once, and the command line says nothing of it."""
    fields = {name: value for name, value in item("Menu", "docs/menu.pdf").items() if name != "index"}
    listed = AgentItem.model_construct(**fields)  # by the wire's names (its aliases)
    key = f"projects/{AGENT}/docs/menu.pdf"
    document, done = settle(Watched("docs/menu.pdf", "Menu", uploaded=False), [listed], key, None)
    assert done and (document.name, document.status, document.item_id) == ("Menu", "unknown", "item_menu")
    report = IndexReport((document,))
    assert not report.reported and report_index(report) == 0 and capsys.readouterr() == ("", "")


class OlderItem(ApiModel):
    """An item as a client generated before ``index`` existed reads it: every field kept as an extra."""


def test_the_index_reads_the_same_as_a_generated_field_or_as_an_extra() -> None:
    wire = item(
        "Prices", "docs/prices.csv", idx=index("failed", error="Damaged: save it again and upload it.", etag='"p"')
    )
    expected = IndexState("failed", 0, "Damaged: save it again and upload it.", "2026-03-01T10:00:00.000Z", '"p"')
    assert index_of(AgentItem.model_validate(wire)) == expected  # the generated field
    assert index_of(OlderItem.model_validate(wire)) == expected  # an extra field


# --- the command line: main() with the plan and its carrying out stubbed, the waiting against the fake portal


@pytest.fixture
def run_cli(
    bundle_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., tuple[int, str, str]]:
    """``run_cli(fake, *options)``: ``workspace-client publish`` of a plan creating the Menu and the Prices."""
    session = tmp_path / "session.json"
    save(session, Session("http://portal.test", None, jwt()))
    plan = plan_of(bundle_dir, created("Menu"), created("Prices"))

    def run(fake: FakePortal, *options: str) -> tuple[int, str, str]:
        real_portal, transport = Portal, httpx.MockTransport(fake)
        monkeypatch.setattr(cli_module, "Portal", lambda url, **kw: real_portal(url, transport=transport, **kw))
        monkeypatch.setattr(cli_module, "make_plan", lambda portal, ws, bundle: plan)
        monkeypatch.setattr(cli_module, "carry_out", lambda portal, plan, progress: AGENT)
        argv = ["publish", str(bundle_dir), "--workspace", WS, "--session-file", str(session), "--no-progress"]
        status = main([*argv, *options])
        out, err = capsys.readouterr()
        return status, out, err

    return run


def test_the_cli_names_what_failed_and_exits_3(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    fake = FakePortal([[
        item("Menu", "docs/menu.pdf", idx=index("indexed", 12)),
        item("Prices", "docs/prices.csv", idx=index("failed", error="Over the plan's limit of text per agent.")),
    ]])  # fmt: skip
    status, out, err = run_cli(fake)
    assert status == EXIT_DOCUMENT_FAILED == 3
    assert out.splitlines()[-2:] == [f"published test-barista to {WS}", "documents: 1 indexed (12 passages), 1 failed"]
    assert err == (
        "workspace-client: 1 document could not be read:\n"
        "  Prices (docs/prices.csv): Over the plan's limit of text per agent.\n"
    )


def test_the_cli_exits_0_once_all_are_read(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    fake = FakePortal([[
        item("Menu", "docs/menu.pdf", idx=index("indexed", 12)),
        item("Prices", "docs/prices.csv", idx=index("skipped")),
    ]])  # fmt: skip
    status, out, err = run_cli(fake)
    assert (status, err) == (0, "") and out.endswith("documents: 1 indexed (12 passages), 1 skipped\n")


def test_the_cli_names_what_is_still_pending_at_the_bound_and_exits_4(
    run_cli: Callable[..., tuple[int, str, str]],
) -> None:
    fake = FakePortal([[
        item("Menu", "docs/menu.pdf", idx=index("indexed", 2)),
        item("Prices", "docs/prices.csv", idx=index("pending")),
    ]])  # fmt: skip
    status, out, err = run_cli(fake, "--wait-seconds", "0")  # one poll, no waiting
    assert status == EXIT_STILL_PENDING == 4 and fake.count(ITEMS_PATH) == 1
    assert out.endswith("documents: 1 indexed (2 passages), 1 still pending after 0 s\n")
    assert err.startswith("workspace-client: 1 document still being read after 0 s") and err.endswith(
        "\n  Prices (docs/prices.csv)\n"
    )


def test_no_wait_reads_nothing_after_publishing(run_cli: Callable[..., tuple[int, str, str]]) -> None:
    fake = FakePortal([[item("Menu", "docs/menu.pdf", idx=index("pending"))]])
    status, out, err = run_cli(fake, "--no-wait")
    assert (status, err, fake.requests) == (0, "", []) and out.endswith(f"published test-barista to {WS}\n")


@pytest.mark.parametrize("seconds", ["-1", "soon", "100000"])
def test_a_wait_bound_that_is_no_number_of_seconds_is_a_usage_error(
    seconds: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["publish", "bundle", "--workspace", WS, "--wait-seconds", seconds])
    assert exited.value.code == 2 and "--wait-seconds" in capsys.readouterr().err


def test_the_help_says_the_exit_statuses(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["publish", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--no-wait" in help_text and "--wait-seconds N" in help_text
    assert "3 published, but a document could not be read" in help_text
    assert "4 published, but documents were still being read after --wait-seconds" in help_text
