"""The read plane's checks, with the run's key, against the agent the run published: every endpoint's answer, a
chat that streams, r2's whole, ranged, conditional and HEAD answers, a signed media URL, and the error bodies."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx

from . import bundle
from .checks import answer, equal, error, expect
from .context import Smoke

NDJSON = "application/x-ndjson"
VISITOR = "smoke_visitor_0123456789abcdef"  # a salted hash, as the spec asks of ``client``: never an address
PROMPT = "In two or three sentences: what did you post recently, and what do you have?"
RANGE = {"Range": "bytes=0-1023"}


def reads(smoke: Smoke) -> None:
    run, agent = smoke.checks.run, f"/v1/agent/{smoke.agent_id}"
    run("brain GET /v1/agent/_whoami", lambda: _whoami(smoke))
    run("brain GET /v1/agent/{id}", lambda: _agent(smoke, _get(smoke, agent)))
    run("brain GET …/feed", lambda: _feed(_get(smoke, f"{agent}/feed")))
    run("brain GET …/feed?channel=&category=", lambda: _filters(smoke, f"{agent}/feed"))
    run("brain GET …/items", lambda: _items(_get(smoke, f"{agent}/items")))
    run("brain GET …/wrap", lambda: equal(_get(smoke, f"{agent}/wrap"), bundle.WRAP, "wrap"))
    run("brain GET …/site", lambda: equal(_get(smoke, f"{agent}/site"), bundle.SITE, "site"))
    run("brain GET …/suggestions", lambda: equal(_get(smoke, f"{agent}/suggestions"),
                                                 {"suggestions": bundle.SUGGESTIONS}, "suggestions"))  # fmt: skip
    run("brain OPTIONS (CORS preflight)", lambda: _preflight(smoke))


def _get(smoke: Smoke, path: str) -> Any:
    """The JSON body of a read-plane GET with the run's key, which must answer 200."""
    return answer(smoke.brain("GET", path), 200)


def _whoami(smoke: Smoke) -> None:
    reply = smoke.brain("GET", "/v1/agent/_whoami")
    equal(answer(reply, 200), {"workspaceId": smoke.footprint.workspace_id, "apiKeyId": smoke.key_id}, "whoami")
    for header in ("ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"):
        expect(reply.headers.get(header, "").isdigit(), f"{header} header: {reply.headers.get(header)!r}")


def _agent(smoke: Smoke, body: Any) -> None:
    equal((body["id"], body["slug"], body["name"]), (smoke.agent_id, bundle.SLUG, bundle.NAME), "agent")
    equal(body["brand"]["id"], smoke.brand_id, "the agent's brand")


def _feed(posts: Any) -> None:
    (post,) = posts
    expected = {k: bundle.POST[k] for k in ("kind", "key", "title", "caption", "hashtags", "channels", "category",
                                            "width", "height", "createdAt")}  # fmt: skip
    equal({k: post[k] for k in expected}, expected, "the feed's post")
    equal((post["mediaType"], post["isVideo"]), ("image", False), "the post's media")


def _filters(smoke: Smoke, feed: str) -> None:
    both = _get(smoke, f"{feed}?channel=site&category=tests")
    equal([p["title"] for p in both], [bundle.POST["title"]], "channel=site&category=tests")
    equal(_get(smoke, f"{feed}?channel=instagram"), [], "channel=instagram")


def _items(items: Any) -> None:
    (item,) = items
    equal((item["name"], item["kind"], item["folder"], item["size"]),
          (bundle.ITEM["name"], "text", "notes", len(bundle.NOTES)), "item")  # fmt: skip
    equal(item["mimeType"], "text/plain", "the item's type")


def _preflight(smoke: Smoke) -> None:
    reply = smoke.brain("OPTIONS", "/v1/agent/_whoami", key="", headers={
        "Origin": "https://shop.example", "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "authorization"})  # fmt: skip
    expect(reply.status_code in (200, 204), f"preflight status {reply.status_code}")
    equal(reply.headers.get("access-control-allow-origin"), "*", "Access-Control-Allow-Origin")


def r2(smoke: Smoke) -> None:
    run, path = smoke.checks.run, f"/v1/r2/projects/{smoke.agent_id}/{bundle.POST['key']}"
    whole = run("brain GET /v1/r2/{path} (whole)", lambda: _whole(smoke, path))
    run("brain GET /v1/r2 with Range → 206", lambda: _ranged(smoke.brain("GET", path, headers=RANGE)))
    if whole:
        run("brain GET /v1/r2 with If-None-Match → 304", lambda: _not_modified(smoke, path, whole))
    run("brain HEAD /v1/r2/{path}", lambda: _head(smoke, path))
    run(
        "brain r2 error: off the allowlist → 403",
        lambda: error(smoke.brain("GET", "/v1/r2/secrets/x.txt"), 403, "PREFIX_NOT_ALLOWED"),
    )
    run(
        "brain r2 error: malformed path → 400",
        lambda: error(smoke.brain("GET", "/v1/r2/projects/a//b.jpg"), 400, "INVALID_PATH"),
    )
    run(
        "brain r2 error: no such object → 404",
        lambda: error(smoke.brain("GET", f"/v1/r2/projects/{smoke.agent_id}/none.jpg"), 404, "NOT_FOUND"),
    )


def _whole(smoke: Smoke, path: str) -> str:
    reply = smoke.brain("GET", path)
    answer(reply, 200, "image/jpeg")
    expect(reply.content == bundle.PHOTO, "the object's bytes differ from the published photo")
    equal(reply.headers.get("content-length"), str(len(bundle.PHOTO)), "Content-Length")
    etag = reply.headers.get("etag", "")
    expect(bool(etag), "no ETag")
    return etag


def _ranged(reply: httpx.Response) -> None:
    """The answer to a GET of the photo with ``RANGE``: its first kilobyte, as a 206."""
    answer(reply, 206, "image/jpeg")
    equal(reply.headers.get("content-range"), f"bytes 0-1023/{len(bundle.PHOTO)}", "Content-Range")
    expect(reply.content == bundle.PHOTO[:1024], "the part's bytes differ")


def _not_modified(smoke: Smoke, path: str, etag: str) -> None:
    reply = smoke.brain("GET", path, headers={"If-None-Match": etag})
    equal((reply.status_code, reply.content), (304, b""), "a conditional GET of the same ETag")
    equal(reply.headers.get("etag"), etag, "the 304's ETag")


def _head(smoke: Smoke, path: str) -> None:
    reply = smoke.brain("HEAD", path)
    equal((reply.status_code, reply.content), (200, b""), "HEAD")
    equal(reply.headers.get("content-length"), str(len(bundle.PHOTO)), "HEAD Content-Length")


def media_url(smoke: Smoke) -> None:
    path = f"projects/{smoke.agent_id}/{bundle.POST['key']}"
    body = answer(smoke.brain("POST", "/v1/media-urls", json={"paths": [path], "expiresIn": 120}), 200)
    (signed,) = body["urls"]
    url = signed["url"]
    expect(url.startswith(f"{smoke.target.brain_url}/v1/r2/{path}?"), f"a URL of the read plane: {url[:120]}")
    fetched = smoke.http.get(url)  # no key: the signature is the credential, as for an <img>
    answer(fetched, 200, "image/jpeg")
    expect(fetched.content == bundle.PHOTO, "the signed URL's bytes differ")
    _ranged(smoke.http.get(url, headers=RANGE))
    error(smoke.http.get(url.replace("sig=", "sig=0")), 403, "SIGNED_URL_INVALID")  # a changed signature


def chat(smoke: Smoke) -> int:
    """One turn, streamed: start, at least one delta, done; each line as it arrives. Returns the credits charged."""
    smoke.footprint.rate_subjects.append(f"visitor#{smoke.footprint.workspace_id}#{smoke.agent_id}#{VISITOR}")
    lines: list[tuple[float, dict[str, Any]]] = []
    request = {"prompt": PROMPT, "client": VISITOR}
    headers = {"Authorization": f"Bearer {smoke.key}"}
    with smoke.http.stream(
        "POST", f"{smoke.target.brain_url}/v1/agent/{smoke.agent_id}/chat", json=request, headers=headers
    ) as reply:
        equal((reply.status_code, reply.headers.get("content-type")), (200, NDJSON), "chat status and type")
        for line in reply.iter_lines():
            if line.strip():
                lines.append((time.monotonic(), json.loads(line)))
    events = [event for _, event in lines if event["type"] != "keepalive"]
    equal(events[0]["type"], "start", "the first line")
    expect(events[0]["threadKey"].startswith("thr_") and events[0]["turnId"].startswith("turn_"), "start's ids")
    equal(events[-1]["type"], "done", f"the last line ({events[-1]})")
    equal(events[-2]["type"], "sources", f"the line before the last ({events[-2]})")
    expect(isinstance(events[-2].get("sources"), list), "sources is a list")
    deltas = [event for event in events[1:-2] if event["type"] == "delta"]
    expect(len(deltas) >= 1 and len(events) - 1 >= 3, f"{len(events) - 1} lines before the end, expected at least 3")
    expect(all(event["type"] == "delta" and event["text"] for event in events[1:-2]), "a line between is not a delta")
    expect(lines[0][0] < lines[-1][0], "every line arrived at once: the reply was buffered, not streamed")
    credits = events[-1]["usage"]["credits"]
    expect(isinstance(credits, int) and credits >= 1, f"usage.credits {credits!r}")
    return credits


def billed(smoke: Smoke, credits: int, available_before: int) -> None:
    """The turn's price left the owner's balance (settled at the end of the stream), nothing held."""
    deadline = time.monotonic() + 10
    while True:
        balance = answer(smoke.portal("GET", "/api/credits/balance"), 200)["balance"]
        if balance == {"available": available_before - credits, "held": 0, "total": available_before - credits}:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"balance {balance} after a turn of {credits} credits from {available_before}")
        time.sleep(0.2)


def errors(smoke: Smoke) -> None:
    run, agent = smoke.checks.run, smoke.agent_id
    run(
        "brain error: a bad key → 401",
        lambda: error(smoke.brain("GET", f"/v1/agent/{agent}", key="sk_ws_" + "0" * 40), 401, "UNAUTHORIZED"),
    )
    run(
        "brain error: no key → 401",
        lambda: error(smoke.brain("GET", f"/v1/agent/{agent}", key=""), 401, "UNAUTHORIZED"),
    )
    run("brain error: unknown route → 404", lambda: error(smoke.brain("GET", "/v1/no-such-route"), 404, "NOT_FOUND"))
    run(
        "brain error: unknown agent → 404",
        lambda: error(smoke.brain("GET", "/v1/agent/prj_unknown/feed"), 404, "NOT_FOUND"),
    )
    address = {"prompt": "hi", "client": "1.2.3.4"}  # an address as the visitor: refused before any stream
    run(
        "brain error: bad chat input → 400",
        lambda: error(smoke.brain("POST", f"/v1/agent/{agent}/chat", json=address), 400, "VALIDATION_ERROR"),
    )
    run(
        "brain error: bad media-urls input → 400",
        lambda: error(smoke.brain("POST", "/v1/media-urls", json={"paths": []}), 400, "VALIDATION_ERROR"),
    )
