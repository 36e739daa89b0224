"""The local runner (``python -m local``) as a real process, and calling it over HTTP as a client would.

``started_service`` gives a runner of its own (with the demo data) for a fixture's lifetime; the e2e, attack,
load, fuzz, browser and client suites build their fixtures from it. ``sign_in`` and ``portal`` are the
management plane's two steps every suite needs: a session by magic link, then calls with the portal JWT.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from local.aws.state.restore import fake_auth
from stack.process import moto_client, running
from stack.template import Stack, load
from tests.support import iam_plugin, log_scan


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    def required_header(self, name: str) -> str:
        """The header a test goes on to parse: its absence fails here, by name, not as a None further on."""
        value = self.header(name)
        assert value is not None, f"no {name} header"
        return value


@dataclass(frozen=True)
class LocalService:
    demo: dict[str, Any]
    state_dir: Path

    @property
    def brain(self) -> str:
        return self.demo["brainUrl"]

    @property
    def portal(self) -> str:
        return self.demo["portalUrl"]

    def request(
        self, method: str, url: str, *, headers: dict[str, str] | None = None, body: bytes | None = None
    ) -> Reply:
        headers = dict(headers or {})
        if body and not any(name.lower() == "content-type" for name in headers):
            headers["Content-Type"] = "application/json"  # the service answers 415 to a body of any other type
        req = urllib.request.Request(url, data=body, method=method, headers=headers)
        log_scan.register_exchange(request_headers=headers, request_body=body)  # secrets no log line may hold
        try:
            with urllib.request.urlopen(req, timeout=30) as res:
                reply = Reply(res.status, {k.lower(): v for k, v in res.headers.items()}, res.read())
                response_headers = res.headers.items()
        except urllib.error.HTTPError as err:
            reply = Reply(err.code, {k.lower(): v for k, v in err.headers.items()}, err.read())
            response_headers = err.headers.items()
        log_scan.register_exchange(response_headers=response_headers, response_body=reply.body)
        return reply

    def aws(self, name: str) -> Any:
        """A boto3 client of this runner's moto, to look at what the service stored."""
        return moto_client(self.state_dir, name)

    def table_items(self, table: str) -> list[dict[str, Any]]:
        """Every item of ``table`` as DynamoDB's JSON has it (``{"pk": {"S": …}}``; a binary value in base64).

        The suites compare whole tables before and after thousands of times. botocore's parsing of a Scan of the
        demo's 3,000 items took 0.4 s of CPU, json.loads of the same answer a few milliseconds: so this asks the
        runner's moto with DynamoDB's JSON protocol itself, paging as the API does.
        """
        about = json.loads((self.state_dir / "runner.json").read_text())
        headers = {
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": "DynamoDB_20120810.Scan",
            "Authorization": fake_auth("dynamodb", about["region"]),
        }
        items: list[dict[str, Any]] = []
        request: dict[str, Any] = {"TableName": table}
        while True:
            sent = urllib.request.Request(about["awsEndpoint"], data=json.dumps(request).encode(), headers=headers)
            with urllib.request.urlopen(sent, timeout=60) as res:
                page = json.loads(res.read())
            items += page["Items"]
            if "LastEvaluatedKey" not in page:
                return items
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def brain_get(self, path: str, key: str | None, **headers: str) -> Reply:
        auth = {"Authorization": f"Bearer {key}"} if key else {}
        return self.request("GET", self.brain + path, headers=auth | headers)


# Every test signs in from 127.0.0.1, so a runner shared by many tests would spend the per-source
# sign-in mail budget (30 in 15 minutes) and then silently send no mail; tests inviting the same addresses into
# their workspaces would spend the invitation budgets (5 an hour per address). Test runners get larger ones; the
# throttles' own tests pass ``sign_in_limits={}`` to run with the deployed defaults.
GENEROUS_MAIL = {"MAGIC_LINK_PER_IP": "10000", "MAGIC_LINK_PER_ADDRESS": "1000",
                 "INVITATIONS_PER_WORKSPACE": "10000", "INVITATIONS_PER_ADDRESS": "1000",
                 "INVITATIONS_TO_ADDRESS": "1000"}  # fmt: skip


def started_service(
    state_dir: Path, *, sign_in_limits: dict[str, str] | None = None, function_env: dict[str, str] | None = None
) -> Iterator[LocalService]:
    """A runner of its own in ``state_dir`` (with the demo data) while the caller's fixture lasts; ``function_env``
    sets settings of every function over the template's (``--function-env``)."""
    limits = GENEROUS_MAIL if sign_in_limits is None else sign_in_limits
    # Each function's calls are judged against its own policy in its worker (tests/support/iam_plugin.py).
    judged = iam_plugin.runner_environment(state_dir / "iam-check")
    starter = os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]  # the test whose setup started this runner
    with running(state_dir, function_env=limits | judged | (function_env or {})) as demo:
        service = LocalService(demo, state_dir)
        knowledge_settled(service)
        yield service
    denied = iam_plugin.collect_runner(state_dir / "iam-check", starter)
    assert not denied, "the runner's functions made calls outside their IAM policy:\n" + "\n".join(denied[:20])


def knowledge_settled(service: LocalService, seconds: float = 120) -> None:
    """Once the knowledge worker has done what the writes so far queued (the demo's, after the runner starts; a
    test's own): tests that compare the stored state before and after must not see the worker's own writes."""
    sqs = service.aws("sqs")
    url = sqs.get_queue_url(QueueName=Stack(load()).physical_name("KnowledgeQueue"))["QueueUrl"]
    names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    deadline, quiet = time.monotonic() + seconds, 0
    while quiet < 2:  # empty twice in a row: the poller may hold a batch it received between two looks
        assert time.monotonic() < deadline, "the knowledge worker did not finish its work"
        counts = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=names)["Attributes"]
        quiet = quiet + 1 if not any(int(counts[name]) for name in names) else 0
        time.sleep(0.05)


def sign_in(service: LocalService, email: str) -> tuple[str, str]:
    """Magic link → outbox → verify → session cookie → portal JWT. Returns (cookie, jwt)."""
    outbox = service.state_dir / "outbox"
    before = set(outbox.glob("*.json")) if outbox.exists() else set()
    body = json.dumps({"email": email}).encode()
    sent = service.request("POST", f"{service.portal}/api/auth/magic-link", body=body)
    assert (sent.status, sent.json()) == (202, {"sent": True})
    (mail,) = set(outbox.glob("*.json")) - before
    message = json.loads(mail.read_text())
    assert message["to"] == email and message["link"] in message["text"]
    token = parse_qs(urlsplit(message["link"]).query)["token"][0]
    verified = service.request(
        "POST", f"{service.portal}/api/auth/magic-link/verify", body=json.dumps({"token": token}).encode()
    )
    assert verified.status == 200 and verified.json()["user"]["email"] == email
    cookie = verified.required_header("set-cookie")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/" in cookie
    session = cookie.split(";", 1)[0]
    minted = service.request("POST", f"{service.portal}/api/auth/api-token", headers={"Cookie": session})
    assert minted.status == 200
    return session, minted.json()["token"]


def invitation_link(service: LocalService, email: str) -> str:
    """The newest invitation link the runner mailed to ``email`` (its outbox; ``…/invitations?token=…``)."""
    links = invitation_links(service, email)
    assert links, f"no invitation mailed to {email}"
    return links[-1]


def invitation_links(service: LocalService, email: str) -> list[str]:
    """Every invitation link mailed to ``email``, oldest first (a mail's file is named by a ULID, so by the
    millisecond it was written), each token registered as a secret no log line may hold."""
    outbox = service.state_dir / "outbox"
    mails = [json.loads(path.read_text()) for path in sorted(outbox.glob("*.json"))] if outbox.exists() else []
    links = [m["link"] for m in mails if m["to"] == email and "/invitations?" in m["link"]]
    for link in links:
        log_scan.register_secret(parse_qs(urlsplit(link).query)["token"][0])
    return links


def portal(service: LocalService, method: str, path: str, jwt: str, body: dict | None = None, **headers: str):
    data = json.dumps(body).encode() if body is not None else None
    return service.request(
        method, service.portal + path, headers={"Authorization": f"Bearer {jwt}"} | headers, body=data
    )
