"""Knowledge over real HTTP through the runner: files uploaded with presigned POSTs to the runner's S3, items made
through the portal, the knowledge worker fed by the runner's queue (the writers' messages, and S3's "Object Created"
events through EventBridge as template.yaml routes them), and the chat's stream naming its sources."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

import httpx
import pytest

from stack.template import ROOT
from tests.support import documents
from tests.support.runner import LocalService, portal, sign_in

pytestmark = pytest.mark.e2e

DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
FILES = {  # name -> (path under the agent's folder, bytes, type, a question, the fact only this file holds)
    "Guide": ("docs/guide.docx", documents.docx_bytes([("Milk", "Oat milk costs 0.40 EUR extra.")]), DOCX,
              "How much is oat milk?", "0.40 EUR"),
    "Sheet": ("docs/prices.xlsx", documents.xlsx_bytes({"Prices": [["item", "price"], ["cortado", 2.85]]}), XLSX,
              "What does a cortado cost?", "2.85"),
    "Brochure": ("docs/brochure.pdf", documents.pdf_bytes(["We roast our beans every Monday."]), "application/pdf",
                 "When do you roast your beans?", "every Monday"),
    "Hours": ("notes/hours.txt", b"Mon-Fri 7:00-18:00\nSat-Sun 8:00-16:00\n", "text/plain",
              "What are your opening hours on Sunday?", "Sat-Sun 8:00-16:00"),
}  # fmt: skip
CLIENT = "v1_e2e_knowledge_client_0001"


def ops(service: LocalService, *args: str) -> dict[str, Any]:
    env = {"PYTHONPATH": f"{ROOT / 'layers' / 'common'}:{ROOT}", "PATH": "/usr/bin:/bin"}
    run = subprocess.run([sys.executable, "-m", "ops", "--state-dir", str(service.state_dir), *args],
                         cwd=ROOT, env=env, capture_output=True, text=True, check=True)  # fmt: skip
    answer: dict[str, Any] = json.loads(run.stdout)
    return answer


def upload(service: LocalService, jwt: str, workspace: str, path: str, file: tuple[bytes, str]) -> None:
    """The portal signs the upload; the file (bytes, type) goes straight to the runner's S3, never through the API."""
    body, content_type = file
    signed = portal(service, "POST", f"/api/workspaces/{workspace}/uploads", jwt,
                    {"path": path, "contentType": content_type, "size": len(body)})  # fmt: skip
    assert signed.status == 201, signed.json()
    form = signed.json()
    sent = httpx.post(form["url"], data=form["fields"], files={"file": ("f", body, content_type)}, timeout=10)
    assert sent.status_code in (200, 201, 204), sent.text


def chat(service: LocalService, key: str, agent: str, prompt: str) -> tuple[str, list[dict[str, Any]]]:
    answer = httpx.post(f"{service.brain}/v1/agent/{agent}/chat", headers={"Authorization": f"Bearer {key}"},
                        json={"prompt": prompt, "client": CLIENT}, timeout=30)  # fmt: skip
    assert answer.status_code == 200, answer.text
    lines = [json.loads(line) for line in answer.text.splitlines()]
    assert [line["type"] for line in lines[-2:]] == ["sources", "done"]
    return "".join(line.get("text", "") for line in lines if line["type"] == "delta"), lines[-2]["sources"]


def items_when(service: LocalService, jwt: str, where: str, ready: Any, seconds: float = 60) -> dict[str, Any]:
    """The agent's items by name, once ``ready(items)`` holds (the worker runs in the background)."""
    deadline = time.monotonic() + seconds
    while True:
        found = {i["name"]: i for i in portal(service, "GET", f"{where}/items", jwt).json()["items"]}
        if ready(found):
            return found
        assert time.monotonic() < deadline, {name: item["index"] for name, item in found.items()}
        time.sleep(0.3)


def test_documents_uploaded_are_indexed_answered_from_named_and_forgotten(service: LocalService) -> None:
    email = "knowledge.e2e@example.org"
    _, jwt = sign_in(service, email)
    ops(service, "set-plan", "--email", email, "--plan", "pro")
    ops(service, "grant", "--email", email, "--credits", "20", "--ref-id", "knowledge-e2e")
    workspace = portal(service, "POST", "/api/workspaces", jwt, {"name": "Knowledge E2E"}).json()["workspace"]["id"]
    key = portal(service, "POST", f"/api/workspaces/{workspace}/keys", jwt, {"name": "site"}).json()["key"]["key"]
    agent = portal(service, "POST", f"/api/workspaces/{workspace}/agents", jwt, {"name": "Barista"}).json()
    agent_id = agent["agent"]["id"]
    where = f"/api/workspaces/{workspace}/agents/{agent_id}"
    for name, (path, body, content_type, _, _) in FILES.items():
        upload(service, jwt, workspace, f"projects/{agent_id}/{path}", (body, content_type))
        made = portal(service, "POST", f"{where}/items", jwt,
                      {"name": name, "kind": "document", "r2Key": f"projects/{agent_id}/{path}"})  # fmt: skip
        assert made.status == 201 and made.json()["item"]["index"]["status"] == "pending"

    items = items_when(
        service, jwt, where, lambda found: all(i["index"]["status"] != "pending" for i in found.values())
    )
    assert {name: item["index"]["status"] for name, item in items.items()} == dict.fromkeys(FILES, "indexed")
    for name, (_, _, _, question, fact) in FILES.items():
        reply, sources = chat(service, key, agent_id, question)
        assert fact in reply, (name, reply)
        assert sources[0]["itemId"] == items[name]["id"] and sources[0]["name"] == name

    # A file replaced through a presigned upload alone: S3's event queues the agent, no API write does.
    before = items["Hours"]["index"]["updatedAt"]
    upload(service, jwt, workspace, f"projects/{agent_id}/notes/hours.txt", (b"Every day 6:00-22:00\n", "text/plain"))
    items_when(service, jwt, where, lambda found: found["Hours"]["index"]["updatedAt"] > before)
    reply, _ = chat(service, key, agent_id, "What are your opening hours?")
    assert "6:00-22:00" in reply and "8:00-16:00" not in reply

    # Deactivated: its fact is no longer answered, nor is it named.
    sheet = items["Sheet"]["id"]
    assert portal(service, "PATCH", f"{where}/items/{sheet}", jwt, {"active": False}).status == 200
    items_when(service, jwt, where, lambda found: found["Sheet"]["index"]["status"] == "skipped")
    reply, sources = chat(service, key, agent_id, "What does a cortado cost?")
    assert "2.85" not in reply and sheet not in {s.get("itemId") for s in sources}
