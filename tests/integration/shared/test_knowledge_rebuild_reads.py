"""What a knowledge rebuild reads from S3 (issue 43): nothing when nothing changed; only the changed document when
one did.

The real worker runs on moto with the suite's call recorder on the service's own clients (the calls-per-request
tests' ``Recorder``): the counts are of S3 calls made, at two sizes of the agent's shelf, never of time.
"""

from __future__ import annotations

from collections import Counter
from typing import Any
from urllib.parse import unquote

import pytest

from core.platform import providers as platform_providers
from core.platform.settings import get_settings
from tests.support.authoring import Studio
from tests.support.call_recorder import Recorder
from tests.support.core_clients import wrap_core_clients
from tests.support.knowledge import current_index, item_states, message, run_worker
from tests.support.portal import Portal, take_messages


class Gets:
    """The object paths of the S3 GETs the service's clients make while ``on``."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.on = False

    def attach(self, client: Any) -> Any:
        client.meta.events.register("before-call.s3.GetObject", self._before, unique_id="knowledge-gets")
        return client

    def _before(self, params: dict[str, Any], **_: Any) -> None:
        if self.on:
            self.paths.append(unquote(params["url_path"]))


@pytest.fixture
def recorder(aws: Any, monkeypatch: pytest.MonkeyPatch) -> Recorder:
    found = Recorder({get_settings().main_table: "main"})
    wrap_core_clients(found.attach, monkeypatch)
    platform_providers.reset()
    return found


@pytest.fixture
def gets(aws: Any, monkeypatch: pytest.MonkeyPatch) -> Gets:
    found = Gets()
    wrap_core_clients(found.attach, monkeypatch)
    platform_providers.reset()
    return found


def shelf(portal: Portal, documents: int) -> tuple[Studio, str, list[str]]:
    """An agent with ``documents`` text documents, indexed; its item ids."""
    studio = Studio.open(portal)
    agent_id = studio.agent("Shelf")["id"]
    ids = []
    for number in range(documents):
        path = f"projects/{agent_id}/docs/note-{number}.txt"
        studio.put_object(path, f"Jar {number} holds {number * 7} beans of kind k{number}.".encode(), "text/plain")
        ids.append(studio.item(agent_id, f"Note {number}", r2Key=path, kind="document")["id"])
    rebuild(studio, agent_id)
    return studio, agent_id, ids


def rebuild(studio: Studio, agent_id: str) -> None:
    take_messages(studio.portal.aws.sqs, get_settings().knowledge_queue_url)  # this rebuild is the test's own
    assert run_worker([message(studio.workspace_id, agent_id)]) == []


def s3_calls(recorder: Recorder) -> Counter[str]:
    return Counter(call.operation for call in recorder.calls if call.table == "s3")


@pytest.mark.parametrize("documents", [3, 30])
def test_a_rebuild_with_nothing_changed_reads_no_object(portal: Portal, recorder: Recorder, documents: int) -> None:
    studio, agent_id, ids = shelf(portal, documents)
    before = current_index(portal.aws, studio.workspace_id, agent_id)
    assert before is not None and before.item_ids == frozenset(ids)
    with recorder.record():
        rebuild(studio, agent_id)
    # One listing of the agent's folder (its ETags), no GET of a document nor of its kept passages, nothing written.
    assert s3_calls(recorder) == Counter({"ListObjectsV2": 1}), s3_calls(recorder)
    assert current_index(portal.aws, studio.workspace_id, agent_id) == before


def test_a_changed_document_is_the_only_document_read(portal: Portal, gets: Gets) -> None:
    studio, agent_id, _ = shelf(portal, 4)
    studio.put_object(f"projects/{agent_id}/docs/note-2.txt", b"Jar 2 now holds pepper.", "text/plain")
    gets.on = True
    rebuild(studio, agent_id)
    gets.on = False
    documents = [path for path in gets.paths if "/projects/" in path]
    kept = [path for path in gets.paths if "/knowledge/" in path]
    # The changed document, once; each item's kept passages (never an unchanged document): the index is built
    # again whole, BM25 counting every passage.
    assert [path.rsplit("/", 1)[1] for path in documents] == ["note-2.txt"], gets.paths
    assert len(kept) == 4 and len(gets.paths) == 5, gets.paths
    after = current_index(portal.aws, studio.workspace_id, agent_id)
    assert after is not None and after.pointer.version == 2
    assert "Jar 2 now holds pepper." in after.texts
    assert not any("kind k2" in text for text in after.texts)


def test_an_item_saved_again_is_still_told_it_was_read(portal: Portal, recorder: Recorder) -> None:
    """An author's write sets the item ``pending``: with the same file and index, the rebuild still records its
    state (the unchanged-rebuild shortcut takes the items' stored states into account)."""
    studio, agent_id, ids = shelf(portal, 2)
    studio.ok("PortalItemUpdateFunction", agent_id=agent_id, item_id=ids[0], body={"origin": "generated"})
    assert (state := item_states(portal.aws, agent_id)[ids[0]]) is not None and state.status == "pending"
    rebuild(studio, agent_id)
    states = item_states(portal.aws, agent_id)
    assert all(s is not None and s.status == "indexed" for s in states.values()), states
    after = current_index(portal.aws, studio.workspace_id, agent_id)
    assert after is not None and after.pointer.version == 1  # the same index: nothing written again
    with recorder.record():
        rebuild(studio, agent_id)
    assert "GetObject" not in s3_calls(recorder)  # and now settled: the next rebuild reads nothing
