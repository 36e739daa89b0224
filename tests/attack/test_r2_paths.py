"""``/v1/r2``: workspace B's objects asked for with workspace A's key, in every path encoding we could think of.

Paths go out byte for byte (a raw socket: ``urllib`` would normalise some of them away). Each answer is its
exact refusal (``400 INVALID_PATH``, ``403 PREFIX_NOT_ALLOWED`` or ``404 NOT_FOUND``) and never B's bytes.
The control is ``core.objects.service.object_path``: decode once, refuse traversal, control characters and
backslashes, then prefix the key's own ``workspaces/<id>/`` (S3 keys are not paths: nothing resolves ``..``).
"""

from __future__ import annotations

import pytest

from tests.support.attack import demo, send
from tests.support.runner import LocalService, Reply

pytestmark = pytest.mark.attack

INVALID, PREFIX, MISSING = (400, "INVALID_PATH"), (403, "PREFIX_NOT_ALLOWED"), (404, "NOT_FOUND")

# {b}: B's workspace id, {agent}: B's published agent. Each case names its expected refusal.
CASES = [
    ("../{b}/public/hello.txt", INVALID, "dot-dot"),
    ("public/../../{b}/public/hello.txt", INVALID, "dot-dot-after-prefix"),
    ("%2e%2e/{b}/public/hello.txt", INVALID, "encoded-dots"),
    ("%2E%2E/%2E%2E/workspaces/{b}/public/hello.txt", INVALID, "encoded-dots-upper"),
    (".%2e/{b}/public/hello.txt", INVALID, "half-encoded-dots"),
    ("..%2f{b}/public/hello.txt", INVALID, "encoded-slash-after-dots"),
    ("public%2F..%2F..%2F{b}%2Fpublic%2Fhello.txt", INVALID, "encoded-slashes"),
    ("public/%2e%2e%2f%2e%2e%2f{b}%2fpublic%2fhello.txt", INVALID, "all-encoded"),
    ("%252e%252e/{b}/public/hello.txt", PREFIX, "double-encoded-dots"),
    ("public/%252e%252e/%252e%252e/{b}/public/hello.txt", MISSING, "double-encoded-dots-after-prefix"),
    ("public%252F..%252F..%252F{b}%252Fpublic%252Fhello.txt", PREFIX, "double-encoded-slashes"),
    ("public\\..\\..\\{b}\\public\\hello.txt", INVALID, "backslashes"),
    ("public%5c..%5c..%5c{b}%5cpublic%5chello.txt", INVALID, "encoded-backslashes"),
    ("public//hello.txt", INVALID, "double-slash"),
    ("/workspaces/{b}/public/hello.txt", INVALID, "absolute"),
    ("%2Fworkspaces%2F{b}%2Fpublic%2Fhello.txt", INVALID, "encoded-absolute"),
    ("/../{b}/public/hello.txt", INVALID, "absolute-dot-dot"),
    ("workspaces/{b}/public/hello.txt", PREFIX, "workspace-relative-to-bucket"),
    ("projects/{agent}/media/img-01.jpg", MISSING, "b-agent-folder"),
    ("projects/{agent}/../../../{b}/public/hello.txt", INVALID, "b-agent-folder-dot-dot"),
    ("public/%E2%80%A4%E2%80%A4/%E2%80%A4%E2%80%A4/{b}/public/hello.txt", MISSING, "one-dot-leaders"),
    ("%EF%BC%8E%EF%BC%8E/{b}/public/hello.txt", PREFIX, "fullwidth-dots"),
    ("public/%EF%BC%8E%EF%BC%8E%EF%BC%8F{b}/public/hello.txt", MISSING, "fullwidth-dots-and-solidus"),
    ("public/hello.txt%00", INVALID, "nul"),
    ("public/%00/../../{b}/public/hello.txt", INVALID, "nul-then-dot-dot"),
    ("public/..%00/{b}/public/hello.txt", INVALID, "dot-dot-nul"),
    ("public/hello.txt%0d%0aX-Injected:%201", INVALID, "crlf"),
    ("%C0%AE%C0%AE/{b}/public/hello.txt", INVALID, "overlong-utf8-dots"),
    ("public%C0%AF..%C0%AF{b}/public/hello.txt", INVALID, "overlong-utf8-slash"),
    ("public/%E0%80%AE%E0%80%AE/{b}", INVALID, "three-byte-overlong-dot"),
    ("public/hello.txt.", MISSING, "trailing-dot"),
    ("public/hello.txt/.", INVALID, "trailing-dot-segment"),
    ("public/hello.txt%2F", INVALID, "trailing-encoded-slash"),
    ("public./hello.txt", PREFIX, "dotted-prefix"),
    ("public/./hello.txt", INVALID, "dot-segment"),
    ("public/..;/..;/{b}/public/hello.txt", MISSING, "tomcat-path-parameter"),
    ("%u002e%u002e/{b}/public/hello.txt", PREFIX, "iis-unicode-escape"),
    ("PUBLIC/hello.txt", PREFIX, "upper-case-prefix"),
    ("private/notes.txt", PREFIX, "private-folder"),
    ("billing/invoice-2026-10.json", PREFIX, "billing-folder"),
]


def r2(service: LocalService, key: str, path: str, method: str = "GET") -> Reply:
    return send(service, service.brain, method, path, [("Authorization", f"Bearer {key}")])


@pytest.fixture(scope="module")
def b_secrets(service: LocalService) -> list[bytes]:
    """Bytes only B's objects hold (read with B's own key, so the test knows what a leak would look like)."""
    _, second = demo(service)
    hello = r2(service, second["key"], "/v1/r2/public/hello.txt")
    assert hello.status == 200 and b"Lumen" in hello.body
    return [b"Lumen", hello.body]


# HEAD runs the same path check as GET; a sample of each kind of refusal keeps the suite short.
HEAD_CASES = {"dot-dot", "encoded-slashes", "double-encoded-dots", "absolute", "b-agent-folder", "nul", "backslashes"}
RUNS = [("GET", c) for c in CASES] + [("HEAD", c) for c in CASES if c[2] in HEAD_CASES]


@pytest.mark.parametrize(("method", "case"), RUNS, ids=[f"{m}-{c[2]}" for m, c in RUNS])
def test_another_workspaces_objects_are_out_of_reach(
    service: LocalService, b_secrets: list[bytes], method: str, case: tuple[str, tuple[int, str], str]
) -> None:
    path, expected, name = case
    first, second = demo(service)
    target = "/v1/r2/" + path.format(b=second["id"], agent=second["agents"][0]["id"])
    reply = r2(service, first["key"], target, method)
    assert reply.status == expected[0], (name, reply.status, reply.body)
    if method == "GET":
        assert reply.json()["code"] == expected[1], reply.body
    assert not any(secret in reply.body for secret in b_secrets)
    assert reply.header("content-length") != str(len(b_secrets[1])) or reply.status != 200


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("/v1/r2//workspaces/{b}/public/hello.txt", INVALID),
        ("/v1/r2/../r2/../../{b}/public/hello.txt", INVALID),
        ("/v1/r2/./public/hello.txt", INVALID),
        ("/v1//r2/public/hello.txt", (404, "NOT_FOUND")),
        ("/v1/r2%2F..%2F..%2F{b}/public/hello.txt", (404, "NOT_FOUND")),
        ("/v1/R2/public/hello.txt", (404, "NOT_FOUND")),
    ],
)
def test_tampering_with_the_route_itself_reaches_nothing(
    service: LocalService, b_secrets: list[bytes], target: str, expected: tuple[int, str]
) -> None:
    first, second = demo(service)
    reply = r2(service, first["key"], target.format(b=second["id"]))
    assert (reply.status, reply.json()["code"]) == expected, reply.body
    assert not any(secret in reply.body for secret in b_secrets)


def test_b_feed_objects_with_as_key(service: LocalService, b_secrets: list[bytes]) -> None:
    """Every object B's own feed points at: readable with B's key, a plain 404 with A's."""
    first, second = demo(service)
    agent = second["agents"][0]["id"]
    feed = service.brain_get(f"/v1/agent/{agent}/feed", second["key"]).json()
    keys = sorted({k for post in feed[:6] for k in (post["key"], post["poster"], post["playable"]) if k})
    assert keys
    own = r2(service, second["key"], f"/v1/r2/projects/{agent}/{keys[0]}")
    assert own.status == 200 and own.body
    for key in keys:
        foreign = r2(service, first["key"], f"/v1/r2/projects/{agent}/{key}")
        assert (foreign.status, foreign.json()["code"]) == MISSING, key
        assert own.body not in foreign.body


def test_the_query_string_is_not_part_of_the_object_path(service: LocalService, b_secrets: list[bytes]) -> None:
    first, second = demo(service)
    reply = r2(service, first["key"], f"/v1/r2/public/hello.txt?path=../../{second['id']}/public/hello.txt")
    assert reply.status == 200 and b"Northwind" in reply.body
    assert not any(secret in reply.body for secret in b_secrets)
