"""One chat turn, measured two ways.

1. AWS calls per turn: the real handler in-process against moto, counting every call
   its boto3 clients make (botocore ``before-call``), for a cold and a warm turn.
2. Over HTTP through the local runner (offline model, ~30 ms between deltas): time to
   the first NDJSON line, to the first text, and to the end of the turn.

    .venv/bin/python bench/chat_turn.py [--turns 10]
"""

from __future__ import annotations

import argparse
import collections
import http.client
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "common")]  # a script: make the project importable

JSON_TYPE = "application/json"  # a body of any other type is a 415
BODY = {"prompt": "Do you have oat milk drinks?", "client": "bench_visitor_0123456789", "threadKey": "thr_bench"}


def count_aws_calls() -> list[collections.Counter]:
    from tests.conftest import FAKE_AWS
    from tests.support.lambdas import stack

    os.environ |= FAKE_AWS | stack().functions()["BrainChatFunction"].environment
    os.environ |= {"CHAT_MODEL": "offline", "OFFLINE_MODEL_DELAY_MS": "0"}
    import boto3
    from moto import mock_aws

    from core import deps
    from local.emulator import create_resources
    from local.events import SAMPLE_AGENT_ID
    from tests.support.lambdas import invoke_streamed, sample_event, with_request
    from tests.support.seed import Seeder

    with mock_aws():
        seed = Seeder(boto3.client("dynamodb"))
        create_resources(stack(), boto3.client("dynamodb"), boto3.client("s3"))
        from local.events import SAMPLE_API_KEY_ID, SAMPLE_KEY, SAMPLE_WORKSPACE_ID

        owner = seed.user("owner@example.com", plan="pro")
        ws = seed.workspace(owner, workspace_id=SAMPLE_WORKSPACE_ID)
        seed.api_key(ws.id, raw=SAMPLE_KEY, key_id=SAMPLE_API_KEY_ID)
        seed.agent(ws, agent_id=SAMPLE_AGENT_ID)
        from core.repositories.ledger import LedgerRepository

        LedgerRepository(boto3.client("dynamodb"), os.environ["LEDGER_TABLE"]).grant(owner.id, 10, "topup", "b", "b")
        deps.reset()
        boto3.setup_default_session()  # the handler's clients come from this session: count its calls
        calls: collections.Counter = collections.Counter()
        boto3.DEFAULT_SESSION.events.register(
            "before-call", lambda model, **_: calls.update([f"{model.service_model.service_name}:{model.name}"])
        )
        turns = []
        for _ in range(2):
            calls.clear()
            event = with_request(sample_event("BrainChatFunction"), body=json.dumps(BODY))
            result = invoke_streamed("BrainChatFunction", event)
            assert result.status == 200 and result.lines()[-1]["type"] == "done", result.body
            turns.append(collections.Counter(calls))
        return turns


def time_turns(turns: int) -> list[tuple[float, float, float]]:
    from local.process import running

    with running(Path(tempfile.mkdtemp(prefix="bench-"))) as demo:
        ws = demo["workspaces"][0]
        url = urlsplit(demo["brainUrl"])
        path = f"/v1/agent/{ws['agents'][0]['id']}/chat"
        timings = []
        for n in range(turns + 1):  # the first turn starts the container (a cold start): reported apart
            body = json.dumps(BODY | {"client": f"bench_visitor_{n:012d}"}).encode()
            connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
            start = time.perf_counter()
            headers = {"Authorization": f"Bearer {ws['key']}", "Content-Type": JSON_TYPE}
            connection.request("POST", path, body=body, headers=headers)
            response = connection.getresponse()
            first_line = first_text = 0.0
            while line := response.readline():
                now = time.perf_counter() - start
                kind = json.loads(line)["type"]
                first_line = first_line or now
                first_text = first_text or (now if kind == "delta" else 0.0)
            timings.append((first_line * 1000, first_text * 1000, (time.perf_counter() - start) * 1000))
            connection.close()
        return timings


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=10)
    args = parser.parse_args()
    for label, calls in zip(("cold", "warm"), count_aws_calls(), strict=True):
        print(
            f"AWS calls, {label} turn: {sum(calls.values())}  "
            + ", ".join(f"{k} {v}" for k, v in sorted(calls.items()))
        )
    timings = time_turns(args.turns)
    cold, warm = timings[0], timings[1:]
    print(f"{'ms over HTTP':24} {'first line':>10} {'first text':>10} {'whole turn':>10}")
    print(f"{'cold (container start)':24} {cold[0]:10.0f} {cold[1]:10.0f} {cold[2]:10.0f}")
    medians = [statistics.median(t[i] for t in warm) for i in range(3)]
    print(f"{f'warm, median of {len(warm)}':24} {medians[0]:10.0f} {medians[1]:10.0f} {medians[2]:10.0f}")


if __name__ == "__main__":
    main()
