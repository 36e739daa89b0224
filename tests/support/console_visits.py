"""Visitors' turns for the console's conversations, insights and credits tests, made as visitors make them: through
the read plane with a workspace key (``workspace_client.Brain``), rated with the feedback route.

``shop(console, email)``: a new owner on the pro plan with credits, a workspace of their own (conversations stored
or not), an agent with one owner's answer (so some turns are answered, naming it in ``sources``, and others not), and
a key. ``ask(shop, client, prompt)`` is one turn read to the end of its stream.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from workspace_client import Brain
from workspace_client.chat import ChatEvent

from tests.support.console import Console
from tests.support.load import ops
from tests.support.runner import knowledge_settled

HOURS_QUESTION = "When do you open on Sundays?"
HOURS_ANSWER = "On Sundays we open at 8 and close at 14."


@dataclass
class Shop:
    console: Console
    email: str
    workspace: str
    agent: str
    key: str

    def api(self, method: str, path: str, body: dict | None = None) -> Any:
        """The portal's JSON answer as the owner (2xx asserted); ``path`` may start with ``~`` for the agent's."""
        path = path.replace("~", f"/api/workspaces/{self.workspace}/agents/{self.agent}", 1)
        reply = self.console.api(self.email, method, path, body)
        assert 200 <= reply.status < 300, (method, path, reply.status, reply.body)
        return reply.json()

    def visitor(self, name: str) -> Brain:
        """A visitor's chat client: its ``client`` id is ``<name>_`` and 32 hex digits (16-128 characters)."""
        return Brain(self.console.service.brain, key=self.key, client_id=f"{name}_{uuid.uuid4().hex}")


def shop(console: Console, email: str, *, store: bool = True, credits: int = 200, answered: bool = True) -> Shop:
    service = console.service
    console.api(email, "GET", "/api/user/account")  # signs the person up (a first sign-in) before the operator's calls
    assert ops(service, "set-plan", "--email", email, "--plan", "pro")["plan"] == "pro"
    reference = f"grant-{uuid.uuid4().hex}"
    assert ops(service, "grant", "--email", email, "--credits", str(credits), "--ref-id", reference)["applied"] is True
    made = console.api(email, "POST", "/api/workspaces", {"name": f"Shop {uuid.uuid4().hex[:6]}"})
    assert made.status == 201, made.body
    workspace = made.json()["workspace"]["id"]
    if store:
        patched = console.api(email, "PATCH", f"/api/workspaces/{workspace}", {"storeConversations": True})
        assert patched.status == 200, patched.body
    agent = console.api(email, "POST", f"/api/workspaces/{workspace}/agents", {"name": "Counter"})
    assert agent.status == 201, agent.body
    agent_id = agent.json()["agent"]["id"]
    key = console.api(email, "POST", f"/api/workspaces/{workspace}/keys", {"name": "site", "rateLimit": 600})
    assert key.status == 201, key.body
    made_shop = Shop(console, email, workspace, agent_id, key.json()["key"]["key"])
    if answered:
        made_shop.api("POST", "~/answers", {"question": HOURS_QUESTION, "answer": HOURS_ANSWER})
        knowledge_settled(service)  # the knowledge worker has read the answer: a turn close to it is answered
    return made_shop


def ask(visitor: Brain, shop: Shop, prompt: str, thread_key: str | None = None) -> ChatEvent:
    """One turn, read to the end of its stream: its final event (turn_id, thread_key, sources)."""
    final = None
    for event in visitor.chat(shop.agent, prompt, thread_key=thread_key):
        final = event
    assert final is not None and final.final and final.turn_id and final.thread_key, final
    return final
