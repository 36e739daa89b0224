"""The knowledge worker's tests' helpers: what an agent's pointer names, its items' states, the worker run as SQS
runs it (redeliveries and the dead-letter queue included), and a fault that never clears.

Every check here reads through the test's own clients (``Aws``), never the service's, so a check is never counted
by the fault injector nor judged against a function's policy; only the worker itself calls through the service's.
"""

from __future__ import annotations

import gzip
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest
from botocore.awsrequest import AWSResponse
from botocore.compat import HTTPHeaders

from core.agents.records import KnowledgePointer
from core.items.records import IndexState
from core.knowledge.index import KnowledgeIndex
from core.knowledge.write_store import KnowledgeStore, knowledge_prefix
from core.platform import providers as platform_providers
from core.platform.ids import new_id
from core.platform.settings import get_settings
from tests.support.core_clients import wrap_core_clients
from tests.support.lambdas import handler_module, load_handler_module
from tests.support.portal import Portal, WorkerContext, sqs_event, take_messages

FUNCTION = "KnowledgeIndexFunction"


def store(aws: Any) -> KnowledgeStore:
    """The worker's store on the test's own clients (reads only, here)."""
    settings = get_settings()
    return KnowledgeStore(aws.dynamodb, settings.main_table, aws.s3, settings.content_bucket)


@dataclass(frozen=True)
class Indexed:
    """What the agent's pointer names, read back and loaded as a chat container loads it."""

    pointer: KnowledgePointer
    item_ids: frozenset[str]
    post_ids: frozenset[str]
    texts: frozenset[str]  # every passage's text
    names: frozenset[str]  # every source's name


def current_index(aws: Any, workspace_id: str, agent_id: str) -> Indexed | None:
    """The index the agent's pointer names (None: no index yet). Fails if the pointer names an object that is gone,
    that ``KnowledgeIndex.load`` refuses, or whose passages disagree with the pointer's count: a half-written index."""
    agent = store(aws).agent(workspace_id, agent_id)
    assert agent is not None, f"the agent {agent_id} is gone"
    pointer = agent.knowledge
    if pointer is None:
        return None
    assert pointer.key.startswith(knowledge_prefix(workspace_id, agent_id)), pointer
    try:
        data = aws.s3.get_object(Bucket=get_settings().content_bucket, Key=pointer.key)["Body"].read()
    except aws.s3.exceptions.NoSuchKey:
        raise AssertionError(f"the pointer names {pointer.key}, which is gone") from None
    loaded = KnowledgeIndex.load(data)
    assert len(loaded) == pointer.passages, (len(loaded), pointer)
    body = json.loads(gzip.decompress(data))
    sources = body["sources"]
    return Indexed(
        pointer,
        frozenset(s["itemId"] for s in sources if s.get("itemId")),
        frozenset(s["postId"] for s in sources if s.get("postId")),
        frozenset(text for _, _, text in body["passages"]),
        frozenset(s["name"] for s in sources),
    )


def item_states(aws: Any, agent_id: str) -> dict[str, IndexState | None]:
    """Each item's index state as stored, by item id (None: never set)."""
    return {item.id: item.index for item in store(aws).items(agent_id)}


def index_objects(aws: Any, workspace_id: str, agent_id: str) -> list[str]:
    """The keys of the agent's index objects (every version of each, deleted ones aside)."""
    pages = aws.s3.get_paginator("list_object_versions").paginate(
        Bucket=get_settings().content_bucket, Prefix=f"{knowledge_prefix(workspace_id, agent_id)}index-"
    )
    return sorted(v["Key"] for page in pages for v in page.get("Versions", []))


# --- the worker as SQS runs it


def message(workspace_id: str, agent_id: str) -> dict[str, Any]:
    """A writer's message (``core.platform.jobs.reread_agent``) as ``receive_message`` hands it."""
    return {"MessageId": new_id("msg"), "ReceiptHandle": new_id("rh"), "MD5OfBody": "",
            "Body": json.dumps({"workspaceId": workspace_id, "agentId": agent_id})}  # fmt: skip


def container() -> ModuleType:
    """A fresh import of the worker's handler: a container of its own (its batch processor and its set of agents
    rebuilt in the invocation are module state, so threads must not share one)."""
    return load_handler_module(FUNCTION, f"handler_{FUNCTION}_{new_id('c')}")


def run_worker(messages: list[dict[str, Any]], handler: ModuleType | None = None) -> list[str]:
    """One invocation with ``messages`` as one batch; the ids of the messages it reported failed."""
    url = get_settings().knowledge_queue_url
    answer = (handler or container()).lambda_handler(sqs_event(messages, url), WorkerContext())
    return [failed["itemIdentifier"] for failed in answer["batchItemFailures"]]


def deliver(sqs: Any, url: str, handler: ModuleType, after: Callable[[], object] = lambda: None) -> int:
    """What the SQS event source does until the queue is empty: receive a batch (five at most, as the template's
    ``BatchSize``), invoke, delete what succeeded; a reported failure is received again (its visibility timeout is
    cut to nothing here) until the queue's RedrivePolicy moves it to the dead-letter queue. ``after`` runs after
    each invocation (a check). The invocations made."""
    invocations = 0
    while batch := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=5, VisibilityTimeout=0,
                                       AttributeNames=["All"]).get("Messages"):  # fmt: skip
        invocations += 1
        failed = set(run_worker(batch, handler))
        for done in batch:
            if done["MessageId"] not in failed:
                sqs.delete_message(QueueUrl=url, ReceiptHandle=done["ReceiptHandle"])
        after()
    return invocations


# --- faults the one-shot injector cannot make


@dataclass
class Stuck:
    """Every call of ``operation`` (on ``service``) whose request path holds ``path_part`` fails with ``code``,
    until ``cleared``: a fault that outlasts every redelivery."""

    service: str
    operation: str
    code: str
    status: int = 500
    path_part: str = ""
    cleared: bool = False
    hits: int = 0

    def attach(self, client: Any) -> Any:
        if client.meta.service_model.endpoint_prefix == self.service:
            client.meta.events.register(f"before-call.*.{self.operation}", self._before, unique_id=f"stuck-{id(self)}")
        return client

    def _before(self, params: dict[str, Any], **_: Any) -> tuple[AWSResponse, dict[str, Any]] | None:
        if self.cleared or self.path_part not in params.get("url_path", ""):
            return None
        self.hits += 1
        parsed = {"Error": {"Code": self.code, "Message": "injected: stuck"},
                  "ResponseMetadata": {"HTTPStatusCode": self.status, "HTTPHeaders": {}}}  # fmt: skip
        return AWSResponse("https://injected.invalid/", self.status, HTTPHeaders(), None), parsed


def stick(fault: Stuck, monkeypatch: pytest.MonkeyPatch) -> Stuck:
    """``fault`` on every client the service makes from now on (the cached ones are forgotten)."""
    wrap_core_clients(fault.attach, monkeypatch)
    platform_providers.reset()
    return fault


# --- making workers meet


def requests_one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The in-process moto answers one request at a time, as AWS applies each request whole: its S3 takes no lock,
    and a listing that meets another thread's write can fail inside moto (``list_object_versions`` iterating a key
    being replaced), which no real bucket does. Requests of several threads still interleave freely."""
    from moto.core.botocore_stubber import BotocoreStubber

    lock = threading.RLock()
    original = BotocoreStubber.process_request

    def process_request(self: BotocoreStubber, request: Any) -> Any:
        with lock:
            return original(self, request)

    monkeypatch.setattr(BotocoreStubber, "process_request", process_request)


@contextmanager
def rendezvous(monkeypatch: pytest.MonkeyPatch, parties: int, seconds: float = 20) -> Iterator[threading.Barrier]:
    """Each worker thread's first pointer move waits until ``parties`` threads have built and written their index:
    every one of them read the agent before any moved its pointer (the worst interleaving of concurrent rebuilds,
    made certain instead of left to the scheduler). A party that never comes breaks the barrier: a failure, not a
    hang."""
    barrier = threading.Barrier(parties, timeout=seconds)
    waited: set[int] = set()
    original = KnowledgeStore.move_pointer

    def move_pointer(self: KnowledgeStore, *args: Any, **kwargs: Any) -> bool:
        me = threading.get_ident()
        if me not in waited:
            waited.add(me)
            barrier.wait()
        return original(self, *args, **kwargs)

    monkeypatch.setattr(KnowledgeStore, "move_pointer", move_pointer)
    yield barrier
    monkeypatch.setattr(KnowledgeStore, "move_pointer", original)


@contextmanager
def held_before_move(monkeypatch: pytest.MonkeyPatch, thread: str, seconds: float = 20) -> Iterator[Held]:
    """The worker thread named ``thread`` stops at its first pointer move (its index built from what it read and
    written) until ``Held.release``; other threads pass."""
    held = Held(threading.Event(), threading.Event(), seconds)
    original = KnowledgeStore.move_pointer

    def move_pointer(self: KnowledgeStore, *args: Any, **kwargs: Any) -> bool:
        if threading.current_thread().name == thread and not held.arrived.is_set():
            held.arrived.set()
            assert held.go.wait(seconds), "never released"
        return original(self, *args, **kwargs)

    monkeypatch.setattr(KnowledgeStore, "move_pointer", move_pointer)
    yield held
    monkeypatch.setattr(KnowledgeStore, "move_pointer", original)


@dataclass(frozen=True)
class Held:
    arrived: threading.Event  # the held thread is at its pointer move
    go: threading.Event
    seconds: float

    def wait(self) -> None:
        assert self.arrived.wait(self.seconds), "the held worker never reached its pointer move"

    def release(self) -> None:
        self.go.set()


def index_queued(portal: Portal) -> int:
    """Hand every queued message to the knowledge worker (as the SQS event source would), until the queue is empty;
    how many it handled. Every message must succeed."""
    url, handled = get_settings().knowledge_queue_url, 0
    while messages := take_messages(portal.aws.sqs, url):
        answer = handler_module("KnowledgeIndexFunction").lambda_handler(sqs_event(messages, url), WorkerContext())
        assert answer == {"batchItemFailures": []}, answer
        handled += len(messages)
    return handled
