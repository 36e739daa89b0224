"""The local runner's output carries what CloudWatch would get: Powertools' JSON lines and EMF documents.

One runner (``python -m local``) for the module; its log file is also scanned for secrets by the log scan.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.runner import LocalService, started_service

PROMPT = "Anything with oat milk and cinnamon this week?"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    yield from started_service(tmp_path_factory.mktemp("metrics-runner"))


def documents(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.startswith('{"')]


def test_each_request_is_one_json_line_and_its_metrics_are_emf_in_the_runner_output(service: LocalService) -> None:
    ws = service.demo["workspaces"][0]
    agent = ws["agents"][0]["id"]
    assert service.brain_get(f"/v1/agent/{agent}/feed", ws["key"]).status == 200
    assert service.brain_get("/v1/agent/_whoami", "sk_ws_not-a-key").status == 401
    body = json.dumps({"prompt": PROMPT, "client": "v1_3f9a2c7e5b1d4e8fa6c0b2d4"}).encode()
    chat = service.request(
        "POST", f"{service.brain}/v1/agent/{agent}/chat", headers={"Authorization": f"Bearer {ws['key']}"}, body=body
    )
    assert chat.status == 200 and b'"type":"done"' in chat.body
    log = service.state_dir / "runner.log"
    deadline = time.monotonic() + 10
    while True:  # a stream's lines are written when it closes, just after the reader has its last byte
        written = documents(log)  # every JSON line parses: Powertools' own JSON, never encoded twice
        done = {d["function_name"]: d for d in written if d.get("message") == "request done"}
        # The turn's EMF document follows its "request done" line: wait for both, or the count races the flush.
        if ("BrainChatFunction" in done and any("ChatTurns" in d for d in written)) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert {"BrainFeedFunction", "BrainWhoAmIFunction", "BrainChatFunction"} <= set(done)
    assert (done["BrainFeedFunction"]["status"], done["BrainFeedFunction"]["workspace_id"]) == (200, ws["id"])
    assert done["BrainWhoAmIFunction"]["status"] == 401 and "workspace_id" not in done["BrainWhoAmIFunction"]
    assert all(d["correlation_id"] and isinstance(d["cold_start"], bool) for d in done.values())
    emf = [d for d in written if "_aws" in d]
    assert sum(d.get("Requests", [0])[0] for d in emf) >= 3
    assert [d["ChatTurns"] for d in emf if "ChatTurns" in d] == [[1.0]]
    assert {"reason": "malformed", "Unauthorized": [1.0]}.items() <= next(d for d in emf if "Unauthorized" in d).items()
    text = log.read_text()
    assert ws["key"] not in text and PROMPT not in text
