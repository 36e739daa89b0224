"""How the console is served, and why its session holds: one origin for the pages and the portal API.

Deployed, CloudFront serves the console and routes ``/api/*`` to the portal API; ``make serve`` does the same with
local/console/. The sign-in's cookie (HttpOnly, SameSite=Lax) is then first-party to the console, under the
browser's default cookie rules. The control: a page on another site calling the portal API directly, with CORS
letting it read the answers, holds no session, because the browser does not send a SameSite=Lax cookie cross-site.
"""

from __future__ import annotations

import http.client
import json
import re
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from local.console import DIST, security_headers
from tests.support import log_scan
from tests.support.console import Console
from tests.support.runner import LocalService, Reply, sign_in

OWNER = "console-serving@example.com"


def test_a_person_signs_in_through_the_mail_link_and_the_session_holds(console: Console) -> None:
    console.sign_in(OWNER)
    console.wait_role("heading", "Your workspaces")
    console.screenshot("home")
    console.axe("home")
    console.driver.refresh()  # the JWT was in memory only: a reload mints another from the cookie
    console.wait_text("Your workspaces")
    assert console.url_path() == "/"
    console.sign_out()
    console.open("/")
    console.wait_text("Sign in to the console")
    assert console.url_path().startswith("/sign-in")


class _Blank(BaseHTTPRequestHandler):
    """A page with nothing on it: an origin to run a script from."""

    def do_GET(self) -> None:
        body = b"<!doctype html><title>Another site</title><p>Another site</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def another_site(cross_site_origin: str) -> Iterator[str]:
    """A blank page at ``http://localhost:<port>``: another site than the console's 127.0.0.1 (the portal's CORS
    names it, tests/browser/console/conftest.py)."""
    port = urlsplit(cross_site_origin).port
    assert port
    server = ThreadingHTTPServer(("127.0.0.1", port), _Blank)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        yield cross_site_origin
    finally:
        server.shutdown()
        server.server_close()


MINT = """
const [url, done] = [arguments[0], arguments[arguments.length - 1]];
fetch(url, {method: "POST", credentials: "include"})
  .then(r => r.text().then(body => done({status: r.status, body})), e => done({error: String(e)}));
"""


def test_the_session_is_first_party_on_one_origin_and_a_page_on_another_site_calling_the_portal_holds_none(
    console: Console, another_site: str
) -> None:
    console.sign_in(OWNER)
    cookies = console.driver.execute_cdp_cmd("Network.getAllCookies", {})["cookies"]
    (session,) = [c for c in cookies if c["name"] == "session"]
    # Set by the portal's answer as the console's proxy passed it on: for the console's host, Lax, HttpOnly.
    assert (session["domain"], session["sameSite"], session["httpOnly"]) == ("127.0.0.1", "Lax", True)

    # On the console's origin, the portal (its /api) mints a JWT from the cookie.
    same = console.driver.execute_async_script(MINT, "/api/auth/api-token")
    assert same["status"] == 200, same

    # The control: a page on another site calls the portal directly. CORS lets it read the answer (so a failure
    # is not CORS's), but the browser sends no SameSite=Lax cookie on a cross-site request: no session, a 401.
    console.driver.get(another_site + "/")
    console.wait_text("Another site")
    cross = console.driver.execute_async_script(MINT, console.service.portal + "/api/auth/api-token")
    assert "error" not in cross, f"CORS refused the control's call, so it shows nothing about cookies: {cross}"
    assert cross["status"] == 401, cross
    assert json.loads(cross["body"])["code"] == "UNAUTHORIZED"

    # Back on the console: the session is still there (the control's 401 ended nothing).
    console.open("/account")
    back = console.driver.execute_async_script(MINT, "/api/auth/api-token")
    assert back["status"] == 200, back


def _raw(url: str, path: str, method: str = "GET", headers: dict[str, str] | None = None) -> Reply:
    """One request over its own connection, the path sent as written (no client normalises ``..``)."""
    parts = urlsplit(url)
    assert parts.hostname and parts.port
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.request(method, path, headers=headers or {})
        answer = connection.getresponse()
        return Reply(answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read())
    finally:
        connection.close()


def _upload_origin(service: LocalService) -> str:
    endpoint = urlsplit(json.loads((service.state_dir / "runner.json").read_text())["awsEndpoint"])
    return f"{endpoint.scheme}://{endpoint.netloc}"


def test_every_answer_carries_the_policy_and_the_security_headers(service: LocalService) -> None:
    url = service.demo["consoleUrl"]
    index = (DIST / "index.html").read_bytes()
    found = re.search(rb'src="(/assets/[^"]+\.js)"', index)
    assert found, index
    js = found[1].decode()
    answers = {
        "/": _raw(url, "/"),
        "/w/ws_x/agents/ag_y/knowledge": _raw(url, "/w/ws_x/agents/ag_y/knowledge"),
        "HEAD /sign-in": _raw(url, "/sign-in", "HEAD"),
        js: _raw(url, js),
        "/missing.js": _raw(url, "/missing.js"),
        "POST /": _raw(url, "/", "POST"),
        "/api/workspaces": _raw(url, "/api/workspaces"),
        "/api/nothing-here": _raw(url, "/api/nothing-here"),
    }
    policy = security_headers(_upload_origin(service))
    assert "connect-src 'self' http://127.0.0.1:" in policy["Content-Security-Policy"]
    for what, reply in answers.items():
        for name, value in policy.items():
            assert reply.header(name) == value, f"{what}: {name} is {reply.header(name)!r}"
    statuses = {what: reply.status for what, reply in answers.items()}
    expected = {"/": 200, "/w/ws_x/agents/ag_y/knowledge": 200, "HEAD /sign-in": 200, js: 200,
                "/missing.js": 404, "POST /": 405, "/api/workspaces": 401, "/api/nothing-here": 404}  # fmt: skip
    assert statuses == expected
    # The API's own answer, passed on as it is: the portal's JSON refusal.
    assert answers["/api/workspaces"].json()["code"] == "UNAUTHORIZED"
    # Hashed assets are cached for ever; index.html (naming them) is checked at every load.
    assert answers[js].header("Cache-Control") == "public, max-age=31536000, immutable"
    assert answers["/"].header("Cache-Control") == "no-cache"


def test_a_path_without_an_extension_is_the_app_and_nothing_outside_dist_is_served(service: LocalService) -> None:
    url = service.demo["consoleUrl"]
    index = (DIST / "index.html").read_bytes()
    for path in ("/", "/sign-in?token=x", "/w/ws_1/", "/w/ws_1/agents/ag_2/insights", "/invitations?token=y"):
        reply = _raw(url, path)
        assert (reply.status, reply.body, reply.header("Content-Type")) == (200, index, "text/html; charset=utf-8")
    for path in ("/../pyproject.toml", "/assets/../../pyproject.toml", "/%2e%2e/%2e%2e/pyproject.toml",
                 "/assets/%2e%2e%2f%2e%2e%2fpackage.json", "/../../local/runner.py", "/favicon.ico"):  # fmt: skip
        reply = _raw(url, path)
        assert reply.status == 404, (path, reply.status, reply.body[:200])


def test_the_proxy_passes_the_portal_answers_on_as_they_come(service: LocalService) -> None:
    """A preview's NDJSON through the console arrives in as many pieces as from the portal itself (the proxy
    buffers nothing), the same lines; a sign-in's Set-Cookie passes, HttpOnly and SameSite=Lax as the portal set it."""
    workspace = service.demo["workspaces"][0]
    _, jwt = sign_in(service, workspace["ownerEmail"])
    where = f"/api/workspaces/{workspace['id']}/agents/{workspace['agents'][0]['id']}/preview"
    body = json.dumps({"prompt": "What is new?"}).encode()
    headers = {"Authorization": f"Bearer {jwt}", "Content-Type": "application/json"}
    direct = _chunks(service.portal, where, body, headers)
    proxied = _chunks(service.demo["consoleUrl"], where, body, headers)
    assert len(direct) >= 3, direct  # start, retrieval, …, done: each written as it is made
    assert len(proxied) >= len(direct), (len(proxied), len(direct))
    lines = [json.loads(line) for line in b"".join(proxied).splitlines()]
    assert lines[0]["type"] == "start" and lines[-1]["type"] == "done", lines
    assert [e["type"] for e in lines] == [json.loads(line)["type"] for line in b"".join(direct).splitlines()]

    # Set-Cookie: a sign-in through the console's /api, as the browser makes it.
    email = "console-proxy@example.com"
    before = set((service.state_dir / "outbox").glob("*.json"))
    asked = _raw(service.demo["consoleUrl"], "/api/auth/magic-link", "POST", {"Content-Type": "application/json"})
    assert asked.status in (400, 422), asked  # no body: the portal's own refusal, passed on
    sent = service.request("POST", service.demo["consoleUrl"] + "/api/auth/magic-link",
                           body=json.dumps({"email": email}).encode())  # fmt: skip
    assert sent.status == 202, sent.body
    (mail,) = set((service.state_dir / "outbox").glob("*.json")) - before
    link = json.loads(mail.read_text())["link"]
    assert link.startswith(service.demo["consoleUrl"] + "?token="), link  # PORTAL_APP_URL is the console
    token = parse_qs(urlsplit(link).query)["token"][0]
    log_scan.register_secret(token)
    verified = service.request("POST", service.demo["consoleUrl"] + "/api/auth/magic-link/verify",
                               body=json.dumps({"token": token}).encode())  # fmt: skip
    assert verified.status == 200, verified.body
    cookie = verified.required_header("set-cookie")
    assert cookie.startswith("session=") and "HttpOnly" in cookie and "SameSite=Lax" in cookie, cookie


def _chunks(base: str, path: str, body: bytes, headers: dict[str, str]) -> list[bytes]:
    """The body of a chunked answer, piece by piece as framed on the wire (a raw socket: no client joins them)."""
    parts = urlsplit(base)
    assert parts.hostname and parts.port
    head = f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n"
    head += "".join(f"{name}: {value}\r\n" for name, value in headers.items()) + "\r\n"
    with socket.create_connection((parts.hostname, parts.port), timeout=60) as sock:
        sock.sendall(head.encode() + body)
        stream = sock.makefile("rb")
        status = stream.readline()
        assert b" 200 " in status, status + stream.read(2000)
        answer_headers = {}
        while (line := stream.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            answer_headers[name.strip().lower()] = value.strip()
        assert answer_headers.get("transfer-encoding") == "chunked", answer_headers
        assert answer_headers.get("content-type") == "application/x-ndjson", answer_headers
        pieces = []
        while size := int(stream.readline().strip(), 16):
            pieces.append(stream.read(size))
            assert stream.read(2) == b"\r\n"
        return pieces


def test_no_page_asks_a_third_party_for_anything_nor_breaks_the_policy(console: Console) -> None:
    """The console's pages, signed in as the demo's owner: every request the browser made went to the console's own
    origin (or data:/blob:), and the browser reported no Content-Security-Policy violation."""
    workspace = console.service.demo["workspaces"][0]
    agent = workspace["agents"][0]["id"]
    console.driver.get_log("performance")  # what earlier tests left in the browser's log
    console.driver.get_log("browser")
    console.sign_in(workspace["ownerEmail"])
    pages = ["/", "/account", f"/w/{workspace['id']}/", f"/w/{workspace['id']}/keys", f"/w/{workspace['id']}/credits",
             f"/w/{workspace['id']}/agents/{agent}/", f"/w/{workspace['id']}/agents/{agent}/insights"]  # fmt: skip
    for path in pages:
        console.open(path)
        console.until(f"{path} shown", lambda: "Loading" not in console.text() and "Signing in" not in console.text())
    urls = []
    for entry in console.driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    allowed = (console.url + "/", "data:", "blob:")
    assert any(u.startswith(console.url + "/assets/") for u in urls), urls  # the log was read at all
    assert [u for u in urls if not u.startswith(allowed)] == []
    violations = [e["message"] for e in console.driver.get_log("browser") if "Content Security Policy" in e["message"]]
    assert violations == []
