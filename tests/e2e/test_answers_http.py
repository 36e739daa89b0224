"""The owner's answers over real HTTP through the runner: an answer written through the portal is read by the
knowledge worker (fed by the runner's queue) and used by the next chat turn, named in its sources; deleted, it is
gone from the turn after (authoring.md, "The owner's answers")."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

import httpx
import pytest

from stack.template import ROOT
from tests.support.runner import LocalService, portal, sign_in

pytestmark = pytest.mark.e2e

CLIENT = "v1_e2e_answers_client_00001"
QUESTION = "Do you deliver to the harbour?"
ANSWER = "Yes: every weekday morning before 10:00, free above 20 EUR."


def ops(service: LocalService, *args: str) -> None:
    env = {"PYTHONPATH": f"{ROOT / 'layers' / 'common'}:{ROOT}", "PATH": "/usr/bin:/bin"}
    subprocess.run([sys.executable, "-m", "ops", "--state-dir", str(service.state_dir), *args],
                   cwd=ROOT, env=env, capture_output=True, text=True, check=True)  # fmt: skip


def chat(service: LocalService, key: str, agent: str, prompt: str) -> tuple[str, list[dict[str, Any]]]:
    answer = httpx.post(f"{service.brain}/v1/agent/{agent}/chat", headers={"Authorization": f"Bearer {key}"},
                        json={"prompt": prompt, "client": CLIENT}, timeout=30)  # fmt: skip
    assert answer.status_code == 200, answer.text
    lines = [json.loads(line) for line in answer.text.splitlines()]
    assert [line["type"] for line in lines[-2:]] == ["sources", "done"]
    return "".join(line.get("text", "") for line in lines if line["type"] == "delta"), lines[-2]["sources"]


def searched_when(service: LocalService, jwt: str, where: str, ready: Any, seconds: float = 60) -> list[Any]:
    """The knowledge search's passages for the question (unbilled), once ``ready(passages)`` holds: the worker runs
    in the background. The deadline only bounds a hang; nothing is judged by how long it took."""
    deadline = time.monotonic() + seconds
    while True:
        found = portal(service, "POST", f"{where}/knowledge/search", jwt, {"query": QUESTION})
        assert found.status == 200, found.json()
        if ready(passages := found.json()["passages"]):
            return list(passages)
        assert time.monotonic() < deadline, passages
        time.sleep(0.3)


def test_an_answer_written_is_used_by_the_next_turn_and_named_then_forgotten(service: LocalService) -> None:
    email = "answers.e2e@example.org"
    _, jwt = sign_in(service, email)
    ops(service, "set-plan", "--email", email, "--plan", "pro")  # keys are a paid plan's
    ops(service, "grant", "--email", email, "--credits", "10", "--ref-id", "answers-e2e")
    workspace = portal(service, "POST", "/api/workspaces", jwt, {"name": "Answers E2E"}).json()["workspace"]["id"]
    key = portal(service, "POST", f"/api/workspaces/{workspace}/keys", jwt, {"name": "site"}).json()["key"]["key"]
    agent_id = portal(service, "POST", f"/api/workspaces/{workspace}/agents", jwt, {"name": "Shop"}).json()["agent"][
        "id"
    ]
    where = f"/api/workspaces/{workspace}/agents/{agent_id}"

    _, sources = chat(service, key, agent_id, QUESTION)
    assert sources == []  # nothing to answer from yet

    made = portal(service, "POST", f"{where}/answers", jwt, {"question": QUESTION, "answer": ANSWER})
    assert made.status == 201, made.json()
    answer = made.json()["answer"]
    listed = portal(service, "GET", f"{where}/answers", jwt).json()
    assert listed == {"answers": [answer], "nextCursor": None}
    searched_when(service, jwt, where, lambda found: found and found[0]["source"]["answerId"] == answer["id"])

    reply, sources = chat(service, key, agent_id, "do you deliver to the harbour")
    assert sources == [{"itemId": None, "postId": None, "answerId": answer["id"], "name": QUESTION, "r2Key": None,
                        "where": ""}]  # fmt: skip
    assert ANSWER in reply, reply

    gone = portal(service, "DELETE", f"{where}/answers/{answer['id']}", jwt)
    assert gone.status == 200 and gone.json() == {}
    searched_when(service, jwt, where, lambda found: found == [])
    reply, sources = chat(service, key, agent_id, QUESTION)
    assert sources == [] and ANSWER not in reply
