"""A document still being read at its deadline (issue 38, hole 1): it ends ``failed`` with the reason in words, and
the worker goes on with the rest of that agent's items and with the other agents of the same batch, so one agent's
document delays another's by at most one document's deadline, within the batch it arrived in.

The worker's clock is the test's: ``Ticks`` moves a fixed step each time it is read. The readers read it once per
few thousand characters of work, so a long document's reading passes its deadline after a known number of checks,
whatever the machine's speed or load; a short one is read in two looks at the clock.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from core.knowledge import extract_passages
from core.knowledge import worker as knowledge_worker
from core.knowledge.extract_passages import TOO_SLOW
from core.platform import providers as platform_providers
from core.platform.settings import get_settings
from tests.support.authoring import Studio
from tests.support.knowledge import item_states, message, run_worker
from tests.support.portal import Portal, take_messages

STEP = 30.0  # seconds of the worker's clock per read: a document gets DOCUMENT_SECONDS / STEP looks at it
HOSTILE = b"lorem " * 200_000  # one 1.2 MB paragraph without a line end: ~80 checks of the clock to read it whole


class Ticks:
    def __init__(self) -> None:
        self.now = 0.0
        self.log: list[float] = []

    def __call__(self) -> float:
        self.now += STEP
        self.log.append(self.now)
        return self.now


@pytest.fixture
def ticks(monkeypatch: pytest.MonkeyPatch) -> Ticks:
    """The worker's clock, and the readers' own (read only when no clock is handed to them)."""
    clock = Ticks()
    for module in (knowledge_worker, extract_passages):
        monkeypatch.setattr(module, "time", SimpleNamespace(monotonic=clock))
    platform_providers.reset()  # the worker is made again, on this clock
    return clock


def shelve(studio: Studio, agent_id: str, name: str, body: bytes, content_type: str) -> str:
    path = f"projects/{agent_id}/docs/{name}"
    studio.put_object(path, body, content_type)
    item: dict[str, Any] = studio.item(agent_id, name, r2Key=path, kind="document")
    return str(item["id"])


def test_a_document_at_its_deadline_fails_in_words_and_the_batch_goes_on(portal: Portal, ticks: Ticks) -> None:
    hostile_studio = Studio.open(portal, "hostile@example.com", name="Hostile")
    hostile_agent = hostile_studio.agent("Hostile")["id"]
    hostile = shelve(hostile_studio, hostile_agent, "stall.md", HOSTILE, "text/markdown")
    beside = shelve(hostile_studio, hostile_agent, "hours.txt", b"Open from 7:00 to 18:00.", "text/plain")
    neighbour_studio = Studio.open(portal, "neighbour@example.com", name="Neighbour")
    neighbour_agent = neighbour_studio.agent("Neighbour")["id"]
    neighbour = shelve(neighbour_studio, neighbour_agent, "menu.txt", b"Cortado 2.85 EUR.", "text/plain")
    take_messages(portal.aws.sqs, get_settings().knowledge_queue_url)  # the writers' own: this batch is the test's

    # One batch, the hostile agent's message first: what SQS hands one invocation.
    failed = run_worker(
        [message(hostile_studio.workspace_id, hostile_agent), message(neighbour_studio.workspace_id, neighbour_agent)]
    )

    assert failed == []  # the document failed, not the message: nothing retried, nothing held back
    hostile_states, neighbour_states = item_states(portal.aws, hostile_agent), item_states(portal.aws, neighbour_agent)
    stalled = hostile_states[hostile]
    assert stalled is not None and stalled.status == "failed" and stalled.error == TOO_SLOW, stalled
    assert stalled.error == "The document took too long to read: upload it in smaller parts"
    assert (s := hostile_states[beside]) is not None and s.status == "indexed", s
    assert (s := neighbour_states[neighbour]) is not None and s.status == "indexed", s
    # The whole batch, on the worker's clock: the hostile document's deadline and a few looks for the short ones.
    looks = knowledge_worker.DOCUMENT_SECONDS / STEP
    assert len(ticks.log) <= looks + 2 + 3 * 2, ticks.log
