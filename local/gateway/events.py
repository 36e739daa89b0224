"""``python -m local.gateway.events``: write one sample API Gateway event per function into ``events/``.

The events are the same REST (v1) proxy events the local runner builds, with fixed
identifiers and a fixed, well-formed sample key, so they work with
``sam local invoke -e`` and the tests seed exactly these values before replaying them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from local.gateway.routing import Match, proxy_event
from stack.template import ROOT, Route, Stack, load

EVENTS_DIR = ROOT / "events"
# Fixed sample values shared by events/*.json and the tests that replay them.
SAMPLE_KEY = "sk_ws_000000000000000000000000000000000000000000g0gJl6Z"  # generate(bytes(31) + b"*")
SAMPLE_WORKSPACE_ID = "ws_01JD0SAMPLE0WORKSPACE00000"
SAMPLE_API_KEY_ID = "key_01JD0SAMPLE0APIKEY0000000"
SAMPLE_AGENT_ID = "prj_01JD0SAMPLE0AGENT000000000"
SAMPLE_TURN_ID = "turn_01JD0SAMPLE0TURN0000000000"
SAMPLE_PARAMS = {"agentId": SAMPLE_AGENT_ID, "proxy": "v1/agent/unknown/route", "path": "assets/logo.png",
                 "turnId": SAMPLE_TURN_ID}  # fmt: skip
SAMPLE_QUERIES = {"/v1/agent/{agentId}/feed": "?channel=instagram"}
SAMPLE_BODIES = {
    "/v1/media-urls": {"paths": ["assets/logo.png", "projects/prj_01JD0SAMPLE0AGENT000000000/media/clip.mp4"]},
    "/v1/agent/{agentId}/chat": {
        "prompt": "What do you have for a rainy day?",
        "client": "v1_3f9a2c7e5b1d4e8fa6c0b2d4",
        "threadKey": "thr_sample",
        "history": [],
        "section": "menu",
    },
    "/v1/agent/{agentId}/turns/{turnId}/feedback": {"client": "v1_3f9a2c7e5b1d4e8fa6c0b2d4", "rating": "up"},
}


def _path_for(route: Route) -> tuple[str, dict[str, str]]:
    path, params = route.path, {}
    for name, value in SAMPLE_PARAMS.items():
        for token in (f"{{{name}}}", f"{{{name}+}}"):
            if token in path:
                path, params[name] = path.replace(token, value), value
    return path, params


def sample_event(route: Route, method: str | None = None) -> dict[str, Any]:
    path, params = _path_for(route)
    # An ANY route (the 405 fallback) only ever sees methods no other route takes: none uses PATCH.
    method = method or ("PATCH" if route.method == "ANY" else route.method)
    headers = [
        ("Host", "localhost"),
        ("Accept", "application/json"),
        ("Authorization", f"Bearer {SAMPLE_KEY}"),
        ("Origin", "https://brand.example.com"),
        ("User-Agent", "curl/8.5.0"),
    ]
    target = path + SAMPLE_QUERIES.get(route.path, "")
    body = json.dumps(SAMPLE_BODIES[route.path]).encode() if route.path in SAMPLE_BODIES else b""
    if body:
        headers.append(("Content-Type", "application/json"))
    event = proxy_event(method, target, headers, body, Match(route, params), stage="live", source_ip="203.0.113.7")
    event["requestContext"] |= {"requestId": "00000000-0000-4000-8000-000000000000", "requestTimeEpoch": 0}
    event["requestContext"]["extendedRequestId"] = event["requestContext"]["requestId"]
    return event


def sample_events(stack: Stack) -> dict[Path, dict[str, Any]]:
    """``events/<FunctionLogicalId>.json``, from each function's most specific route (an explicit method over
    ``ANY``, then the route with the most path parameters; the catch-all ``/{proxy+}`` last).

    Named like the function so ``sam local invoke F -e events/F.json`` reads naturally.
    """
    out: dict[Path, dict[str, Any]] = {}
    for api in ("BrainApi", "PortalApi"):
        ranked = sorted(stack.routes(api), key=lambda r: (r.path == "/{proxy+}", r.method == "ANY", -r.path.count("{")))
        for route in ranked:
            out.setdefault(EVENTS_DIR / f"{route.function}.json", sample_event(route))
    return out


def main() -> None:
    for path, event in sample_events(Stack(load())).items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(event, indent=2) + "\n")
        print(path.relative_to(ROOT))


if __name__ == "__main__":
    main()
