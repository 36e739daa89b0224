"""Helpers of the load suite: timed requests, bounded concurrent bursts, owners with a plan, workspace and key, and
an author's agents, objects and posts (through the portal, as a client writes them)."""

from __future__ import annotations

import contextlib
import http.client
import io
import json
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any
from urllib.parse import urlencode, urlsplit

from ops.__main__ import main as ops_main
from tests.support import log_scan
from tests.support.runner import LocalService, portal, sign_in
from tests.support.s3_post import post_form

MAX_CLIENTS = 32  # the runner's bound: it answers every one (queued, or shed with Retry-After)
REFUSED = 0  # the status recorded when the connection was refused: nothing was sent, so the request had no effect


class BrokenExchange(AssertionError):
    """A request whose connection was made but that got no whole HTTP answer: a read timeout (a hang), a reset
    mid-response, a malformed or cut-short answer. Never a load test's expected outcome: it fails the test.

    The runner's documented back-pressure is an answer (429/503 with ``Retry-After``, ``shed``); the only failure a
    load test may count as a refusal is a connection refused at connect (``REFUSED``), which sent nothing.
    """


@dataclass(frozen=True)
class Shot:
    """One request as a client saw it: monotonic send and receive times, status, headers, body."""

    sent: float
    received: float
    status: int
    headers: dict[str, str]
    body: bytes
    error: str = ""

    def json(self) -> Any:
        return json.loads(self.body)

    def code(self) -> str | None:
        try:
            return self.json().get("code")
        except (ValueError, AttributeError):
            return None


def shoot(base_url: str, method: str, path: str, *, headers: dict[str, str] | None = None, body: bytes | None = None,
          timeout: float = 20) -> Shot:  # fmt: skip
    """One request on a fresh connection (as independent clients send). A connection refused at connect is a
    ``REFUSED`` shot; any other failure (a timeout, a reset or malformed answer) raises ``BrokenExchange``."""
    url = urlsplit(base_url)
    assert url.hostname == "127.0.0.1" and url.port, base_url  # loopback only
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=timeout)
    log_scan.register_exchange(request_headers=headers, request_body=body)  # secrets no log line may hold
    sent = time.monotonic()
    phase = "connect"
    try:
        connection.connect()
        phase = "send"
        connection.request(method, path, body=body, headers=headers or {})
        phase = "response"
        response = connection.getresponse()
        phase = "body"
        payload = response.read()
        found = {k.lower(): v for k, v in response.getheaders()}
        log_scan.register_exchange(response_headers=found, response_body=payload)
        return Shot(sent, time.monotonic(), response.status, found, payload)
    except ConnectionRefusedError as refused:
        if phase != "connect":  # refused after the connection was made: not a refusal at accept
            raise BrokenExchange(f"{method} {path}: {phase}: {type(refused).__name__}: {refused}") from refused
        return Shot(sent, time.monotonic(), REFUSED, {}, b"", error=f"{phase}: {type(refused).__name__}: {refused}")
    except (OSError, http.client.HTTPException) as failure:
        raise BrokenExchange(f"{method} {path}: {phase}: {type(failure).__name__}: {failure}") from failure
    finally:
        connection.close()


def shed(shot: Shot) -> bool:
    """Turned away by the runner for want of a container (as Lambda throttles), not by the service.

    The service's own 429 carries ``RateLimit-*`` headers; the runner's 429/503 carries only ``Retry-After``.
    """
    return shot.status in (429, 503) and "ratelimit-limit" not in shot.headers and "retry-after" in shot.headers


def admitted(send: Callable[[], Shot], *, deadline_seconds: float = 60) -> Shot:
    """``send`` again while the runner sheds it, after the ``Retry-After`` it gives, as a careful client does."""
    give_up = time.monotonic() + deadline_seconds
    shot = send()
    while shed(shot) and time.monotonic() < give_up:
        time.sleep(min(float(shot.headers["retry-after"]), 5.0))
        shot = send()
    return shot


def burst[T](calls: Sequence[Callable[[], T]], *, workers: int, deadline_seconds: float) -> list[T]:
    """Run every call on ``workers`` threads, the first ones released together; all must finish by the deadline.

    Past the deadline nothing new starts (``TimeoutError``), and calls not yet started are dropped.
    """
    assert 0 < workers <= MAX_CLIENTS and len(calls) <= 2_000
    ends = time.monotonic() + deadline_seconds
    start = threading.Barrier(min(workers, len(calls)))

    def bounded(call: Callable[[], T], first: bool) -> Callable[[], T]:
        def run() -> T:
            if first:
                with contextlib.suppress(threading.BrokenBarrierError):
                    start.wait(timeout=deadline_seconds)
            if time.monotonic() > ends:
                raise TimeoutError("the burst's deadline passed before this call started")
            return call()

        return run

    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        futures = [pool.submit(bounded(c, n < workers)) for n, c in enumerate(calls)]
        return [f.result(timeout=max(0.1, ends - time.monotonic())) for f in futures]
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # running calls end within their socket timeout


def warm(base_url: str, paths: list[str], clients: int, method: str = "GET") -> None:
    """Start about ``clients`` containers of each path's function: unauthenticated calls (401), ramped up by two.

    The runner starts a container (a cold start) per concurrent request, as Lambda does;
    starting them first keeps cold starts out of the measured runs. Ramping keeps only a
    couple of cold starts at a time: ten at once on two busy cores outlast the function's
    timeout (a 502, see the report of issue 11's load suite).
    """
    for path in paths:
        for wave in range(2, clients + 2, 2):
            calls = [partial(shoot, base_url, method, path, timeout=60)] * min(wave, clients)
            shots = burst(calls, workers=len(calls), deadline_seconds=90)
            assert {s.status for s in shots} == {401}, [(s.status, s.error) for s in shots]


def received(shots: list[Shot]) -> list[Shot]:
    """The requests that got an HTTP answer (not ``REFUSED``: those reached no function and changed nothing)."""
    return [s for s in shots if s.status != REFUSED]


def ops(service: LocalService, *args: str) -> dict[str, Any]:
    """``python -m ops`` against this runner (the operator's own code path), in-process; its JSON answer."""
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        assert ops_main(["--state-dir", str(service.state_dir), *args]) == 0
    return json.loads(output.getvalue())


@dataclass(frozen=True)
class Owner:
    email: str
    jwt: str
    user_id: str


def owner_on_plan(service: LocalService, email: str, plan: str = "pro") -> Owner:
    """A signed-in user (magic link through the outbox) on ``plan``, which decides whether they may mint keys."""
    _, jwt = sign_in(service, email)
    assert ops(service, "set-plan", "--email", email, "--plan", plan)["plan"] == plan
    account = portal(service, "GET", "/api/user/account", jwt)
    assert account.status == 200, account.body
    return Owner(email, jwt, account.json()["id"])


def new_workspace(service: LocalService, owner: Owner, name: str) -> str:
    created = portal(service, "POST", "/api/workspaces", owner.jwt, {"name": name})
    assert created.status == 201, created.body
    return created.json()["workspace"]["id"]


def mint_key(service: LocalService, owner: Owner, workspace_id: str, rate_limit: int) -> dict[str, Any]:
    minted = portal(
        service, "POST", f"/api/workspaces/{workspace_id}/keys", owner.jwt, {"name": "load", "rateLimit": rate_limit}
    )
    assert minted.status == 201, minted.body
    return minted.json()["key"]


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


# --- the writer: agents, objects and posts of a workspace, through the portal's API as an author calls it


def new_agent(service: LocalService, owner: Owner, workspace_id: str, name: str) -> str:
    created = portal(service, "POST", f"/api/workspaces/{workspace_id}/agents", owner.jwt, {"name": name})
    assert created.status == 201, created.body
    return created.json()["agent"]["id"]


def upload_object(
    service: LocalService, jwt: str, workspace_id: str, path: str, body: bytes, *, content_type: str = "image/jpeg"
) -> None:
    """An object stored as a client stores one: the portal signs a POST (``…/uploads``), the form goes to S3."""
    signed = portal(service, "POST", f"/api/workspaces/{workspace_id}/uploads", jwt,
                    {"path": path, "contentType": content_type, "size": len(body)})  # fmt: skip
    assert signed.status == 201, signed.body
    ticket = signed.json()
    sent = post_form(ticket["url"], ticket["fields"], body)
    assert sent.status_code == 204, sent.text[:300]  # S3's answer to a POST without success_action_status


def listed_posts(
    service: LocalService, jwt: str, workspace_id: str, agent_id: str, status: str | None = None
) -> list[dict[str, Any]]:
    """Every post the portal lists (every page, ``limit`` 200), newest first; ``status`` as the query's."""
    path = f"/api/workspaces/{workspace_id}/agents/{agent_id}/posts"
    query: dict[str, str] = {"limit": "200"} | ({"status": status} if status else {})
    posts: list[dict[str, Any]] = []
    for _ in range(100):
        page = portal(service, "GET", f"{path}?{urlencode(query)}", jwt)
        assert page.status == 200, page.body
        posts += page.json()["posts"]
        if not page.json()["nextCursor"]:
            return posts
        query["cursor"] = page.json()["nextCursor"]
    raise AssertionError(f"{path}: more than 100 pages")


def write(base_url: str, method: str, path: str, jwt: str, body: Any = None, **headers: str) -> Shot:
    """One JSON request of an author (fresh connection), sent again while the runner sheds it (``admitted``)."""
    data = json.dumps(body).encode() if body is not None else None
    sent = bearer(jwt) | ({"Content-Type": "application/json"} if data is not None else {}) | headers
    return admitted(partial(shoot, base_url, method, path, headers=sent, body=data))
