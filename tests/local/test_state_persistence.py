"""The local runner keeps its state across restarts: a write that was answered 2xx is there after a restart.

A runner process is started on a state directory; a user signs in, creates a workspace, mints a key,
is granted credits and chats (which stores the conversation in S3); then writes keep arriving while
the runner is stopped with SIGTERM (or Ctrl-C's SIGINT). On the same directory a new runner finds all
of it: the workspace, the key (it works), the balance, the session (the old JWT and its refresh), the
demo workspaces with the same ids and keys, and every key whose mint was answered 201.
``--fresh`` starts clean. Killed with SIGKILL instead, it loses no answered write either, its
containers exit on their own, and a journal line the kill tore does not keep it from starting.
"""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from stack.process import RunnerProcess
from stack.process_tree import descendants, wait_until_gone
from tests.support.lambdas import stack
from tests.support.load import REFUSED, BrokenExchange, ops, shoot
from tests.support.runner import GENEROUS_MAIL, LocalService, portal, sign_in

pytestmark = pytest.mark.e2e


class Runner:
    """A runner process on one state directory, restarted at will."""

    def __init__(self, state_dir: Path):
        self.state_dir = state_dir
        self.process: RunnerProcess | None = None

    def start(self, *, fresh: bool = False, demo: bool = True) -> LocalService:
        self.process = RunnerProcess(self.state_dir, function_env=GENEROUS_MAIL, fresh=fresh, demo=demo)
        return LocalService(self.process.start(), self.state_dir)

    def stop(self, signum: int) -> int | None:
        assert self.process is not None
        status, self.process = self.process.stop(signum), None
        return status


@pytest.fixture
def runner(tmp_path: Path) -> Iterator[Runner]:
    kept = Runner(tmp_path / "state")
    try:
        yield kept
    finally:
        if kept.process is not None:
            kept.stop(signal.SIGKILL)


def _chat(service: LocalService, key: str, agent_id: str) -> list[dict[str, Any]]:
    body = json.dumps({"prompt": "Anything kept across restarts?", "client": "visitor_state_0001"}).encode()
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    reply = service.request("POST", f"{service.brain}/v1/agent/{agent_id}/chat", headers=headers, body=body)
    assert reply.status == 200, reply.body
    return [json.loads(line) for line in reply.body.splitlines() if line.strip()]


def _mint_while_stopping(service: LocalService, jwt: str, ws: str, stop: Callable[[], None]) -> list[dict]:
    """Keys minted back to back by four clients while ``stop`` stops the runner; those answered 201."""
    answered: list[dict] = []
    go, stopped = threading.Event(), threading.Event()
    headers = {"Authorization": f"Bearer {jwt}", "Content-Type": "application/json"}

    def client(n: int) -> None:
        go.wait()
        for attempt in range(100):
            if stopped.is_set():
                return
            body = json.dumps({"name": f"inflight {n}-{attempt}", "rateLimit": 1000}).encode()
            try:
                shot = shoot(service.portal, "POST", f"/api/workspaces/{ws}/keys", headers=headers, body=body,
                             timeout=30)  # fmt: skip
            except BrokenExchange:  # accepted by the kernel as the port closed, never by the runner: stopped
                return
            if shot.status == 201:
                answered.append(shot.json()["key"])
            elif shot.status in (REFUSED, 503):  # the port is closed, or refused while stopping: stopped
                return

    threads = [threading.Thread(target=client, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    go.set()
    deadline = time.monotonic() + 60
    while len(answered) < 6 and time.monotonic() < deadline:  # writes are flowing before the signal lands
        time.sleep(0.05)
    assert len(answered) >= 6, "keys were not being minted"
    stop()
    stopped.set()
    for thread in threads:
        thread.join(timeout=60)
    return answered


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "ctrl-c"])
def test_a_restart_keeps_every_answered_write(runner: Runner, signum: int) -> None:
    service = runner.start()
    demo = service.demo["workspaces"]
    email = "keeper@example.org"
    cookie, jwt = sign_in(service, email)
    assert ops(service, "set-plan", "--email", email, "--plan", "pro")["plan"] == "pro"
    ws = portal(service, "POST", "/api/workspaces", jwt, {"name": "Kept"}).json()["workspace"]["id"]
    key = portal(service, "POST", f"/api/workspaces/{ws}/keys", jwt, {"name": "kept", "rateLimit": 1000})
    assert key.status == 201, key.body
    assert ops(service, "grant", "--email", email, "--credits", "7", "--ref-id", "kept-7")["applied"] is True
    demo_key, demo_agent = demo[0]["key"], demo[0]["agents"][0]["id"]
    assert _chat(service, demo_key, demo_agent)[-1]["type"] == "done"
    conversations = _stored_turns(service)
    assert conversations

    def graceful_stop() -> None:
        assert runner.stop(signum) == 0  # in-flight requests answered, journal closed

    answered = _mint_while_stopping(service, jwt, ws, graceful_stop)

    again = runner.start()
    assert again.demo["workspaces"] == demo  # same ids, same raw keys
    assert portal(again, "GET", "/api/user/account", jwt).json()["email"] == email  # the old JWT
    assert portal(again, "POST", "/api/auth/refresh", jwt).status == 200  # and its refresh
    assert again.request("POST", f"{again.portal}/api/auth/api-token", headers={"Cookie": cookie}).status == 200
    assert ws in {w["id"] for w in portal(again, "GET", "/api/workspaces", jwt).json()}
    listed = {k["id"] for k in portal(again, "GET", f"/api/workspaces/{ws}/keys", jwt).json()["keys"]}
    lost = [k["id"] for k in answered if k["id"] not in listed]
    assert not lost, f"answered 201 but lost in the restart: {lost}"
    for minted in (key.json()["key"], answered[-1]):  # the first key, and the last one answered before the stop
        assert again.brain_get("/v1/agent/_whoami", minted["key"]).json()["workspaceId"] == ws
    balance = portal(again, "GET", "/api/credits/balance", jwt).json()["balance"]
    assert balance["available"] == 7
    assert again.brain_get(f"/v1/agent/{demo_agent}/feed?channel=instagram", demo_key).status == 200
    assert _stored_turns(again) == conversations
    assert again.brain_get("/v1/r2/assets/logo.png", demo_key).status == 200

    if signum == signal.SIGTERM:  # --fresh does not depend on how the last run stopped: checked once
        runner.stop(signal.SIGTERM)
        # Without the demo: an empty state seeding it is the demo template's own start (stack/demo_template.py,
        # tests/local/test_demo_data.py), and publishing it again here cost about 35 s of the suite's CPU.
        fresh = runner.start(fresh=True, demo=False)
        assert fresh.demo["workspaces"] == []  # nothing kept: not the demo, not the workspace made above
        assert portal(fresh, "GET", "/api/user/account", jwt).status == 401  # the user is gone


def test_a_killed_runner_keeps_every_answered_write(runner: Runner) -> None:
    service = runner.start()
    email = "killed@example.org"
    _, jwt = sign_in(service, email)
    assert ops(service, "set-plan", "--email", email, "--plan", "pro")["plan"] == "pro"
    ws = portal(service, "POST", "/api/workspaces", jwt, {"name": "Killed"}).json()["workspace"]["id"]
    containers: list[int] = []

    def kill() -> None:
        assert runner.process is not None
        containers.extend(descendants(runner.process.pid))
        assert runner.stop(signal.SIGKILL) == -signal.SIGKILL

    answered = _mint_while_stopping(service, jwt, ws, kill)
    assert containers, "the runner had started no container"
    assert not wait_until_gone(containers, timeout=30), "containers outlived their killed runner"
    journal = max((runner.state_dir / "state").glob("journal-*.ndjson"))
    last_line = journal.read_bytes().splitlines()[-1]
    with journal.open("ab") as out:  # as if the kill had landed in the middle of one more write
        out.write(last_line[: len(last_line) // 2])

    again = runner.start()
    listed = {k["id"] for k in portal(again, "GET", f"/api/workspaces/{ws}/keys", jwt).json()["keys"]}
    lost = [k["id"] for k in answered if k["id"] not in listed]
    assert not lost, f"answered 201 but lost to the kill: {lost}"
    assert again.brain_get("/v1/agent/_whoami", answered[-1]["key"]).json()["workspaceId"] == ws
    assert "is incomplete and skipped" in (runner.state_dir / "runner.log").read_text()


def _stored_turns(service: LocalService) -> list[dict[str, Any]]:
    """The stored conversations' items (turns and their threads: the agents' ``#CONVERSATIONS`` partitions)."""
    table = stack().functions()["BrainChatFunction"].environment["MAIN_TABLE"]
    items = [i for i in service.table_items(table) if i["pk"]["S"].endswith("#CONVERSATIONS")]
    return sorted(items, key=lambda i: (i["pk"]["S"], i["sk"]["S"]))
