"""Webhooks over real HTTP through the runner (issue 42's proof): local receivers get every event type of the contract
(and the three extensions), each verified with the published ``standardwebhooks`` library, not this service's code.

The changes are made as users make them: the API (webhooks, invitations, members, settings, items, agents, erasure),
the brain API (chat turns, a rating), the operator's ``python -m ops grant``, and the workers the runner feeds (the
knowledge worker reading documents, the re-stamping pass, the events function on the tables' streams, the delivery
worker on its queue). Also: a rotated secret's two signatures each verify; a receiver that answers 500, then
recovers, gets every event once, each with one ``webhook-id`` across its attempts; a 410 disables its webhook; a
receiver that hangs does not hold another's deliveries (shown by order: the other's next event arrives while the
hanging one's attempt is still under way; the other's latency is printed, not asserted).

The runner's retry schedule is shortened (``WEBHOOK_RETRY_SECONDS``) and the re-stamp is not delayed
(``RESTAMP_DELAY_SECONDS``): a runner of its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from standardwebhooks.webhooks import Webhook

from stack.template import ROOT
from tests.support import documents
from tests.support.attack import invitation_token
from tests.support.runner import LocalService, portal, sign_in, started_service

pytestmark = pytest.mark.e2e

WAIT_SECONDS = 120  # the longest a test waits for an event: only a lost one reaches it
EVERY_TYPE = {
    "webhook.test", "credits.granted", "credits.low", "credits.exhausted", "conversation.turn.completed",
    "feedback.created", "knowledge.item.indexed", "knowledge.item.failed", "member.joined", "member.removed",
    "conversation.erased", "conversations.retention.applied", "agent.deleted",
}  # fmt: skip
FAILS_FIRST = 6  # the recovering receiver's first answers that are 500 (fewer than a delivery's 8 attempts)


# ------------------------------------------------------------------------------------------------ receivers


@dataclass
class Hit:
    headers: dict[str, str]
    body: bytes
    status: int
    at: float  # time.monotonic() when it arrived (for the printed latency only)

    @property
    def webhook_id(self) -> str:
        return self.headers["webhook-id"]

    @property
    def type(self) -> str:
        kind: str = json.loads(self.body)["type"]
        return kind


@dataclass
class Receiver:
    """A local HTTP receiver on 127.0.0.1; ``answer(receiver)`` gives each request's status (it may block)."""

    answer: Callable[[Receiver], int] = lambda _: 204
    hits: list[Hit] = field(default_factory=list)
    arrived: int = 0
    release: threading.Event = field(default_factory=threading.Event)
    changed: threading.Condition = field(default_factory=threading.Condition)

    def __post_init__(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                headers = {k.lower(): v for k, v in self.headers.items()}
                at = time.monotonic()
                with receiver.changed:
                    receiver.arrived += 1
                    receiver.changed.notify_all()
                status = receiver.answer(receiver)
                with receiver.changed:
                    receiver.hits.append(Hit(headers, body, status, at))
                    receiver.changed.notify_all()
                try:
                    self.send_response(status)
                    self.send_header("content-length", "0")
                    self.end_headers()
                except OSError:  # the sender gave up on a held request
                    pass

            def log_message(self, *_: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def delivered(self) -> list[Hit]:
        with self.changed:
            return [hit for hit in self.hits if 200 <= hit.status < 300]

    def wait_for(self, what: Callable[[Receiver], bool], about: str) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: what(self), timeout=WAIT_SECONDS), (about, self.types())

    def wait_types(self, *types: str) -> None:
        self.wait_for(lambda r: set(types) <= {hit.type for hit in r.delivered()}, f"waiting for {types}")

    def types(self) -> list[str]:
        return [hit.type for hit in self.hits]

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def fails_first(count: int) -> Callable[[Receiver], int]:
    def answer(receiver: Receiver) -> int:
        return 500 if receiver.arrived <= count else 200

    return answer


def hangs(receiver: Receiver) -> int:
    receiver.release.wait(WAIT_SECONDS)
    return 200


@pytest.fixture
def receivers() -> Iterator[Callable[..., Receiver]]:
    made: list[Receiver] = []

    def make(answer: Callable[[Receiver], int] = lambda _: 204) -> Receiver:
        made.append(receiver := Receiver(answer))
        return receiver

    yield make
    for receiver in made:
        receiver.close()


# ------------------------------------------------------------------------------------------------ the service


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    settings = {"WEBHOOK_RETRY_SECONDS": "1,1,1,1,1,1,1", "RESTAMP_DELAY_SECONDS": "0"}
    yield from started_service(tmp_path_factory.mktemp("webhooks-state"), function_env=settings)


def ok(reply: Any, status: int = 200) -> Any:
    assert reply.status == status, (reply.status, reply.body[:500])
    return reply.json()


def ops(service: LocalService, *args: str) -> dict[str, Any]:
    """The operator's command against this runner (``make ops ARGS=…``)."""
    env = {"PYTHONPATH": f"{ROOT / 'layers' / 'common'}:{ROOT}", "PATH": "/usr/bin:/bin"}
    run = subprocess.run([sys.executable, "-m", "ops", "--state-dir", str(service.state_dir), *args],
                         cwd=ROOT, env=env, capture_output=True, text=True, check=True, timeout=120)  # fmt: skip
    answer: dict[str, Any] = json.loads(run.stdout)
    return answer


@dataclass
class Owner:
    service: LocalService
    email: str
    jwt: str
    workspace: str

    @property
    def base(self) -> str:
        return f"/api/workspaces/{self.workspace}"

    def call(self, method: str, path: str, body: dict[str, Any] | None = None, status: int = 200) -> Any:
        return ok(portal(self.service, method, self.base + path, self.jwt, body), status)

    def webhook(self, url: str, events: list[str] | None = None) -> tuple[str, str]:
        made = self.call("POST", "/webhooks", {"url": url, "events": events or ["*"]}, 201)
        return made["webhook"]["id"], made["secret"]

    def agent(self, name: str) -> str:
        agent_id: str = self.call("POST", "/agents", {"name": name}, 201)["agent"]["id"]
        return agent_id


def new_owner(service: LocalService, name: str) -> Owner:
    email = f"{name}@example.org"
    _, jwt = sign_in(service, email)
    ops(service, "set-plan", "--email", email, "--plan", "pro")
    workspace = ok(portal(service, "POST", "/api/workspaces", jwt, {"name": name}), 201)["workspace"]["id"]
    return Owner(service, email, jwt, workspace)


def chat(service: LocalService, key: str, agent: str, client: str) -> tuple[int, list[dict[str, Any]]]:
    reply = service.request(
        "POST", f"{service.brain}/v1/agent/{agent}/chat", headers={"Authorization": f"Bearer {key}"},
        body=json.dumps({"prompt": "What are your opening hours?", "client": client}).encode(),
    )  # fmt: skip
    lines = (
        [json.loads(line) for line in reply.body.decode().splitlines() if line.strip()] if reply.status == 200 else []
    )
    return reply.status, lines


def upload(owner: Owner, path: str, body: bytes, content_type: str = "text/plain") -> None:
    import httpx

    signed = owner.call("POST", "/uploads", {"path": path, "contentType": content_type, "size": len(body)}, 201)
    sent = httpx.post(signed["url"], data=signed["fields"], files={"file": ("f", body, content_type)}, timeout=10)
    assert sent.status_code in (200, 201, 204), sent.text


def verified(hit: Hit, secret: str) -> dict[str, Any]:
    """The body, as the published verifier accepts it (it raises on a bad signature, id or timestamp)."""
    payload: dict[str, Any] = Webhook(secret).verify(hit.body, hit.headers)
    return payload


# ------------------------------------------------------------------------------------------------ the tests


def join_and_remove(service: LocalService, owner: Owner, email: str) -> str:
    """``email`` invited, signed in, accepts; then the owner removes them. Their user id."""
    owner.call("POST", "/invitations", {"email": email, "role": "member"}, 201)
    _, member = sign_in(service, email)
    ok(portal(service, "POST", "/api/invitations/accept", member, {"token": invitation_token(service, email)}))
    member_id: str = ok(portal(service, "GET", "/api/user/account", member))["id"]
    owner.call("DELETE", f"/members/{member_id}")
    return member_id


def assert_recovered(recovering: Receiver, stream_ids: set[str], secret: str) -> None:
    """Each event's attempts all carried one webhook-id and the same body, and one attempt of each succeeded."""
    recovering.wait_for(lambda r: stream_ids <= {hit.webhook_id for hit in r.delivered()}, "the recovered receiver")
    attempts = recovering.hits
    assert sum(hit.status == 500 for hit in attempts) == FAILS_FIRST
    assert {hit.webhook_id for hit in attempts} == stream_ids  # retries carry the id they first had
    got = [hit.webhook_id for hit in recovering.delivered()]
    assert sorted(got) == sorted(stream_ids)  # each once
    for hit in attempts:
        verified(hit, secret)
    bodies: dict[str, set[bytes]] = {}
    for hit in attempts:
        bodies.setdefault(hit.webhook_id, set()).add(hit.body)
    assert all(len(b) == 1 for b in bodies.values())  # every attempt of an event sent the same body


def test_every_event_type_reaches_the_receivers_signed_and_once(
    service: LocalService, receivers: Callable[..., Receiver]
) -> None:
    owner = new_owner(service, "webhooks-e2e-owner")
    ok(portal(service, "PATCH", owner.base, owner.jwt, {"storeConversations": True}))
    steady, recovering = receivers(), receivers(fails_first(FAILS_FIRST))
    steady_id, secret = owner.webhook(steady.url)
    _, recovering_secret = owner.webhook(recovering.url)

    # webhook.test, from the API
    test_delivery = owner.call("POST", f"/webhooks/{steady_id}/test", status=202)["deliveryId"]
    steady.wait_types("webhook.test")

    # credits: granted (the operator's command), low (the threshold crossed by a turn), exhausted (a 402)
    ops(service, "grant", "--email", owner.email, "--credits", "3", "--ref-id", "webhooks-e2e-1")
    steady.wait_types("credits.granted")
    ok(portal(service, "PATCH", owner.base, owner.jwt, {"lowCreditsThreshold": 3}))
    agent = owner.agent("Webhook Barista")
    key = owner.call("POST", "/keys", {"name": "site"}, 201)["key"]["key"]
    status, lines = chat(service, key, agent, "webhooks_e2e_visitor_1")
    assert status == 200 and lines[-1]["type"] == "done", lines[-1:]
    turn = lines[0]["turnId"]
    for n in range(50):  # until the balance is spent: a chat refused with 402
        status, _ = chat(service, key, agent, f"webhooks_e2e_visitor_{n + 2}")
        if status == 402:
            break
    assert status == 402
    steady.wait_types("conversation.turn.completed", "credits.low", "credits.exhausted")

    # a rating
    rated = service.request(
        "POST", f"{service.brain}/v1/agent/{agent}/turns/{turn}/feedback", headers={"Authorization": f"Bearer {key}"},
        body=json.dumps({"client": "webhooks_e2e_visitor_1", "rating": "down", "comment": "Not it."}).encode(),
    )  # fmt: skip
    assert rated.status == 200, rated.body

    # knowledge: one document read, one that cannot be (a PDF locked by a password)
    locked = documents.encrypted_pdf(["secret"], user_password="pw")
    for name, path, body, kind in (("Hours", "hours.txt", b"Mon-Fri 7:00-18:00\n", "text/plain"),
                                   ("Locked", "locked.pdf", locked, "application/pdf")):  # fmt: skip
        upload(owner, f"projects/{agent}/notes/{path}", body, kind)
        item = {"name": name, "kind": "document", "r2Key": f"projects/{agent}/notes/{path}"}
        owner.call("POST", f"/agents/{agent}/items", item, 201)

    # a member joins (an invitation accepted) and is removed
    member_id = join_and_remove(service, owner, "webhooks-e2e-member@example.org")

    # a visitor's conversations erased; the retention changed (the re-stamping pass applies it); the agent deleted
    owner.call("DELETE", f"/agents/{agent}/conversations?client=webhooks_e2e_visitor_1")
    owner.call("PATCH", "", {"conversationRetentionDays": 30})
    steady.wait_types("feedback.created", "knowledge.item.indexed", "knowledge.item.failed", "member.joined",
                      "member.removed", "conversation.erased", "conversations.retention.applied")  # fmt: skip
    owner.call("DELETE", f"/agents/{agent}")
    steady.wait_types("agent.deleted")

    # Every type came, each verified by the published library, each event once (its id, its delivery)
    hits = steady.delivered()
    assert {hit.type for hit in hits} == EVERY_TYPE
    payloads = [verified(hit, secret) for hit in hits]
    assert all(p["data"]["workspaceId"] == owner.workspace and p["timestamp"] for p in payloads)
    ids = [hit.webhook_id for hit in hits]
    assert len(ids) == len(set(ids)), "an event was delivered twice"
    by_type = {p["type"]: p["data"] for p in payloads}
    turns = {p["data"]["turnId"] for p in payloads if p["type"] == "conversation.turn.completed"}
    assert turn in turns and len(turns) == sum(hit.type == "conversation.turn.completed" for hit in hits)
    assert by_type["member.joined"]["userId"] == member_id and by_type["member.removed"]["userId"] == member_id
    assert by_type["agent.deleted"]["agentId"] == agent and by_type["credits.granted"]["amount"] == 3
    assert by_type["credits.low"]["threshold"] == 3
    listed = owner.call("GET", f"/webhooks/{steady_id}/deliveries?limit=100")["deliveries"]
    assert test_delivery in {d["id"] for d in listed}
    assert {d["status"] for d in listed} == {"delivered"}

    # The receiver that failed first got every event but the test (sent to the other only), once recovered.
    assert_recovered(recovering, {hit.webhook_id for hit in hits if hit.type != "webhook.test"}, recovering_secret)


def test_a_rotated_secret_and_the_previous_one_each_verify_the_same_request(
    service: LocalService, receivers: Callable[..., Receiver]
) -> None:
    owner = new_owner(service, "webhooks-e2e-rotation")
    receiver = receivers()
    webhook, old = owner.webhook(receiver.url)
    new = owner.call("POST", f"/webhooks/{webhook}/rotate")["secret"]
    assert new != old and new.startswith("whsec_")
    owner.call("POST", f"/webhooks/{webhook}/test", status=202)
    receiver.wait_types("webhook.test")
    # The owner's own joining may come too: it was committed in the webhook's second, and a change in that second is
    # delivered rather than lost (core.webhooks.fanout._before). The test event is the one this test is about.
    delivered = [hit for hit in receiver.delivered() if hit.type == "webhook.test"]
    assert {hit.type for hit in receiver.delivered()} <= {"webhook.test", "member.joined"}
    (hit,) = delivered
    assert len(hit.headers["webhook-signature"].split(" ")) == 2
    assert verified(hit, old) == verified(hit, new)
    assert verified(hit, new)["type"] == "webhook.test"


def test_a_410_disables_the_webhook(service: LocalService, receivers: Callable[..., Receiver]) -> None:
    owner = new_owner(service, "webhooks-e2e-gone")
    gone = receivers(lambda _: 410)
    webhook, _ = owner.webhook(gone.url)
    owner.call("POST", f"/webhooks/{webhook}/test", status=202)
    gone.wait_for(lambda r: len(r.hits) == 1, "the 410")
    deadline = time.monotonic() + WAIT_SECONDS
    while (found := owner.call("GET", "/webhooks")["webhooks"][0])["enabled"]:
        assert time.monotonic() < deadline, found
        time.sleep(0.2)
    assert (found["enabled"], found["disabledReason"]) == (False, "gone")
    deleted = owner.agent("Deleted Barista")
    owner.call("DELETE", f"/agents/{deleted}")  # an event the webhook would have had
    other = receivers()
    owner.webhook(other.url)
    owner.call("DELETE", f"/agents/{owner.agent('Later Barista')}")
    other.wait_types("agent.deleted")  # once the later event came, the disabled webhook had its chance
    assert len(gone.hits) == 1


def test_a_hanging_receiver_does_not_hold_another_webhooks_deliveries(
    service: LocalService, receivers: Callable[..., Receiver]
) -> None:
    owner = new_owner(service, "webhooks-e2e-hang")
    hanging, quick = receivers(hangs), receivers()
    hanging_id, _ = owner.webhook(hanging.url, ["agent.deleted"])
    owner.webhook(quick.url, ["agent.deleted"])
    first, second = owner.agent("First"), owner.agent("Second")

    owner.call("DELETE", f"/agents/{first}")
    hanging.wait_for(lambda r: r.arrived == 1, "the hanging receiver's first request")
    quick.wait_for(lambda r: len(r.delivered()) == 1, "the first event")
    sent = time.monotonic()
    owner.call("DELETE", f"/agents/{second}")
    quick.wait_for(lambda r: len(r.delivered()) == 2, "the second event")
    latency = quick.delivered()[1].at - sent
    # The hanging receiver's attempt at the first event is still under way (not recorded) when the other's second
    # event has arrived.
    deliveries = owner.call("GET", f"/webhooks/{hanging_id}/deliveries")["deliveries"]
    (held,) = [d for d in deliveries if d["eventId"] == quick.delivered()[0].webhook_id]
    print(f"\nanother receiver's delivery while one hangs: {latency * 1000:.0f} ms after the change")
    assert (held["status"], held["attempts"]) == ("pending", 0)
    assert hanging.hits == [] and hanging.arrived >= 1
