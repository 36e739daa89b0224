"""The attack suite's helpers: raw HTTP, sign-in through the runner's outbox, forged portal JWTs, invitations.

Raw HTTP goes through a socket where ``urllib`` would tidy the attack away (duplicate headers, paths that
must reach the server byte for byte, header values with CR/LF). People sign in as a browser does (magic
link → outbox → verify → api-token). Portal JWTs are forged with the runner's own signing secret
(``<state_dir>/PortalJwtSecret.secret``), so a token can be validly signed yet wrong in exactly one claim.
"""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

from core.identity import portal_jwt
from tests.support.runner import LocalService, Reply, invitation_link

JSON_TYPE = {"Content-Type": "application/json"}


# --- raw HTTP


def raw_request(url: str, request_head: bytes, body: bytes = b"", timeout: float = 30) -> Reply:
    """Send ``request_head`` (request line + headers, no final blank line) exactly as written; parse the reply.

    ``http.client`` refuses CR/LF in header values and merges nothing, so attacks on framing go through a socket.
    """
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=timeout) as sock:
        head = request_head + b"\r\nHost: " + parts.netloc.encode() + b"\r\nConnection: close\r\n"
        if body:
            head += b"Content-Length: %d\r\n" % len(body)
        sock.sendall(head + b"\r\n" + body)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return parse_reply(data)


def parse_reply(data: bytes) -> Reply:
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = int(lines[0].split(b" ", 2)[1])
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.decode("latin-1").partition(":")
        # Repeated headers are joined, so a test can see an injected second one.
        key = name.strip().lower()
        headers[key] = f"{headers[key]}\n{value.strip()}" if key in headers else value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = _unchunk(body)
    return Reply(status, headers, body)


def _unchunk(body: bytes) -> bytes:
    out = b""
    while body:
        size_line, _, body = body.partition(b"\r\n")
        size = int(size_line.split(b";")[0] or b"0", 16)
        if size == 0:
            break
        out, body = out + body[:size], body[size + 2 :]
    return out


def send(service: LocalService, base: str, method: str, path: str, headers: list[tuple[str, str]]) -> Reply:
    """A request whose path and headers (repeats included) reach the runner untouched."""
    lines = [f"{method} {path} HTTP/1.1"] + [f"{name}: {value}" for name, value in headers]
    return raw_request(base, "\r\n".join(lines).encode("latin-1"))


# --- the management plane


@dataclass(frozen=True)
class Person:
    email: str
    cookie: str  # "session=<token>"
    jwt: str
    user_id: str


def magic_token(service: LocalService, email: str) -> str:
    """Ask for a sign-in link and read its token from the outbox (the newest mail to ``email``)."""
    outbox = service.state_dir / "outbox"
    before = set(outbox.glob("*.json")) if outbox.exists() else set()
    sent = post_json(service, "/api/auth/magic-link", {"email": email})
    assert (sent.status, sent.json()) == (202, {"sent": True})
    deadline = time.monotonic() + 5
    while not (new := [p for p in set(outbox.glob("*.json")) - before if json.loads(p.read_text())["to"] == email]):
        assert time.monotonic() < deadline, f"no sign-in mail to {email}"
        time.sleep(0.05)
    return parse_qs(urlsplit(json.loads(new[0].read_text())["link"]).query)["token"][0]


def post_json(service: LocalService, path: str, body: Any, **headers: str) -> Reply:
    """An unauthenticated portal POST with a JSON body (``urllib`` would label it a form)."""
    data = json.dumps(body).encode()
    return service.request("POST", service.portal + path, headers=JSON_TYPE | headers, body=data)


def verify(service: LocalService, token: str) -> Reply:
    return post_json(service, "/api/auth/magic-link/verify", {"token": token})


def sign_in(service: LocalService, email: str) -> Person:
    verified = verify(service, magic_token(service, email))
    assert verified.status == 200, verified.body
    set_cookie = verified.header("set-cookie")
    assert set_cookie, verified.headers
    cookie = set_cookie.split(";", 1)[0]
    minted = service.request("POST", f"{service.portal}/api/auth/api-token", headers={"Cookie": cookie})
    assert minted.status == 200, minted.body
    jwt = minted.json()["token"]
    account = portal(service, "GET", "/api/user/account", jwt)
    return Person(email, cookie, jwt, account.json()["id"])


def portal(service: LocalService, method: str, path: str, jwt: str, body: Any = None, **headers: str) -> Reply:
    data = json.dumps(body).encode() if body is not None else None
    auth = {"Authorization": f"Bearer {jwt}"} | (JSON_TYPE if data is not None else {})
    return service.request(method, service.portal + path, headers=auth | headers, body=data)


# --- invitations


def invite(service: LocalService, jwt: str, workspace_id: str, email: str, role: str = "member") -> Reply:
    return portal(service, "POST", f"/api/workspaces/{workspace_id}/invitations", jwt, {"email": email, "role": role})


def invitation_token(service: LocalService, email: str) -> str:
    """The token of the newest invitation link mailed to ``email`` (as the invitee follows it)."""
    return parse_qs(urlsplit(invitation_link(service, email)).query)["token"][0]


def accept(service: LocalService, jwt: str, token: str) -> Reply:
    return portal(service, "POST", "/api/invitations/accept", jwt, {"token": token})


def joined(service: LocalService, jwt: str, workspace_id: str, email: str, role: str = "member") -> Person:
    """``email`` signed in, invited by ``jwt``'s user and accepted: a member of ``workspace_id`` in ``role``."""
    person = sign_in(service, email)
    made = invite(service, jwt, workspace_id, email, role)
    assert made.status == 201, made.body
    answer = accept(service, person.jwt, invitation_token(service, email))
    assert answer.status == 200, answer.body
    return person


# --- forging portal JWTs


def jwt_secret(service: LocalService) -> bytes:
    return (service.state_dir / "PortalJwtSecret.secret").read_text().strip().encode()  # one of the runner's secrets


def claims_of(service: LocalService, token: str) -> dict[str, Any]:
    """The claims of a token the service issued (checked with its own secret)."""
    import jwt

    return jwt.decode(token, jwt_secret(service), algorithms=["HS256"], audience=portal_jwt.AUDIENCE)


def forge(claims: dict[str, Any], key: bytes | str, algorithm: str = "HS256", headers: dict | None = None) -> str:
    import jwt

    return jwt.encode(claims, key, algorithm=algorithm, headers=headers)


def b64url(data: bytes | dict) -> str:
    import base64

    raw = json.dumps(data, separators=(",", ":")).encode() if isinstance(data, dict) else data
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@dataclass(frozen=True)
class Cast:
    """The demo's people, each signed in once for the whole suite (the ``cast`` fixture)."""

    owner_a: Person  # owner of A (plan pro: may mint keys and create workspaces)
    member_a: Person  # a plain member of A
    owner_b: Person  # owner of B


def demo(service: LocalService) -> tuple[dict[str, Any], dict[str, Any]]:
    """The demo's two workspaces: A (Northwind, two agents, a member) and B (Lumen)."""
    first, second = service.demo["workspaces"][:2]
    return first, second


def add_member(service: LocalService, workspace_id: str, user_id: str, role: str) -> None:
    """Give a user a role in a workspace, written into the runner's moto through the layer's repository
    (the API has no invitation endpoint yet)."""
    from core.platform.ids import new_id, now_iso
    from core.workspaces.records import MembershipRecord
    from core.workspaces.store import WorkspaceStore
    from stack.template import Stack, load

    repo = WorkspaceStore(service.aws("dynamodb"), Stack(load()).physical_name("MainTable"))
    repo.put_member(
        MembershipRecord(id=new_id("mem"), workspace_id=workspace_id, user_id=user_id, role=role, created_at=now_iso())
    )
