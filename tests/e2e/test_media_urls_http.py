"""Signed media URLs over real HTTP (the local runner): ask with the key, then fetch as an <img>/<video> would."""

from __future__ import annotations

import json
from typing import Any

from tests.support.runner import LocalService
from tests.support.signed_urls import register_signatures


def _video(service: LocalService) -> tuple[str, str]:
    workspace = service.demo["workspaces"][0]
    agent = workspace["agents"][0]["id"]
    posts: list[dict[str, Any]] = service.brain_get(f"/v1/agent/{agent}/feed", workspace["key"]).json()
    video = next(p for p in posts if p["kind"] == "video")
    return workspace["key"], f"projects/{agent}/{video['playable']}"


def test_a_signed_url_streams_a_video_with_range_and_no_header(service: LocalService) -> None:
    key, path = _video(service)
    asked = service.request(
        "POST", f"{service.brain}/v1/media-urls", headers={"Authorization": f"Bearer {key}"},
        body=json.dumps({"paths": [path], "expiresIn": 120}).encode(),
    )  # fmt: skip
    assert asked.status == 200, asked.body
    url = asked.json()["urls"][0]["url"]
    register_signatures(url)
    assert url.startswith(f"{service.brain}/v1/r2/{path}?expires=")  # absolute, on the runner's own host
    whole = service.request("HEAD", url)
    assert whole.status == 200 and int(whole.required_header("content-length")) > 1024
    part = service.request("GET", url, headers={"Range": "bytes=0-1023"})
    assert (part.status, len(part.body)) == (206, 1024)
    assert part.required_header("content-range").startswith("bytes 0-1023/")
    max_age = int(part.required_header("cache-control").removeprefix("private, max-age="))
    assert 0 < max_age <= 120
    again = service.request("GET", url, headers={"If-None-Match": part.required_header("etag")})
    assert again.status == 304


def test_the_preflight_stays_the_gateways(service: LocalService) -> None:
    """API Gateway answers OPTIONS without the key (it cannot know its origins): the function's answer decides."""
    reply = service.request(
        "OPTIONS", f"{service.brain}/v1/media-urls",
        headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
    )  # fmt: skip
    assert reply.status in (200, 204) and reply.header("access-control-allow-origin") == "*"
