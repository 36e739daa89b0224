"""A bundle's ``answers.json`` (docs/bundles.md): the owner's answers published, matched by question (created, their
text updated, those the bundle lacks deleted), exported and published back unchanged; a bundle without the file
leaves the agent's answers alone. Against a real local runner, as tests/client/test_bundle_publish.py."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from workspace_client import Portal
from workspace_client.bundle import export, load_bundle, publish
from workspace_client.bundle.changes import CreateAnswer, DeleteAnswer, UpdateAnswer
from workspace_client.bundle.files import BundleError
from workspace_client.bundle.state import all_answers, read_state

from tests.support.bundles import signed_in, started_service_without_demo, write_bundle
from tests.support.runner import LocalService

pytestmark = pytest.mark.e2e
SLUG = "test-barista"
ANSWERS = [
    {"question": "Are you open on Sunday?", "answer": "Yes: 9:00 to 14:00."},
    {"question": "Do you have oat milk?", "answer": "Always, at no extra cost.\nAsk for it."},
]


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    yield from started_service_without_demo(tmp_path_factory.mktemp("bundle-answers-state"))


def workspace(service: LocalService) -> tuple[Portal, str]:
    portal = signed_in(service, f"answers-{uuid.uuid4().hex[:12]}@example.com")
    return portal, portal.create_workspace(name="Answers").workspace.id


def listed(portal: Portal, workspace_id: str) -> list[tuple[str, str]]:
    """The agent's answers, oldest first, as (question, answer)."""
    state = read_state(portal, workspace_id, SLUG)
    assert state.agent is not None
    return [(a.question, a.answer) for a in sorted(state.answers, key=lambda a: a.id)]


def answer_ids(portal: Portal, workspace_id: str) -> dict[str, str]:
    agent = read_state(portal, workspace_id, SLUG).agent
    assert agent is not None
    return {a.question: a.id for a in all_answers(portal, workspace_id, agent.id)}


def test_answers_are_published_exported_and_published_back_unchanged(service: LocalService, tmp_path: Path) -> None:
    portal, ws = workspace(service)
    bundle = write_bundle(tmp_path / "bundle", answers_json=ANSWERS)
    plan = publish(portal, ws, bundle, progress=False)
    assert [str(c) for c in plan.changes if isinstance(c, CreateAnswer)] == [
        "create answer “Are you open on Sunday?”", "create answer “Do you have oat milk?”"]  # fmt: skip
    assert listed(portal, ws) == [(a["question"], a["answer"]) for a in ANSWERS]
    assert publish(portal, ws, bundle, progress=False).empty

    exported = export(portal, ws, SLUG, tmp_path / "exported", progress=False)
    assert load_bundle(exported).answers == load_bundle(bundle).answers
    assert publish(portal, ws, exported, progress=False).empty
    # Into another workspace: the same answers, and publishing it again there changes nothing.
    elsewhere, other = workspace(service)
    publish(elsewhere, other, exported, progress=False)
    assert listed(elsewhere, other) == listed(portal, ws)
    assert publish(elsewhere, other, exported, progress=False).empty


def test_a_changed_answer_is_updated_a_dropped_one_deleted_and_no_file_leaves_them(
    service: LocalService, tmp_path: Path
) -> None:
    portal, ws = workspace(service)
    publish(portal, ws, write_bundle(tmp_path / "a", answers_json=ANSWERS), progress=False)
    ids = answer_ids(portal, ws)
    changed = [{"question": "Are you open on Sunday?", "answer": "No, closed on Sundays."}]
    plan = publish(portal, ws, write_bundle(tmp_path / "b", answers_json=changed), progress=False)
    assert [str(c) for c in plan.changes if isinstance(c, UpdateAnswer | DeleteAnswer)] == [
        "update answer “Are you open on Sunday?”: answer", "delete answer “Do you have oat milk?”"]  # fmt: skip
    assert plan.removals == 1
    assert listed(portal, ws) == [("Are you open on Sunday?", "No, closed on Sundays.")]
    # Updated in place: the same answer, its id kept.
    assert answer_ids(portal, ws) == {"Are you open on Sunday?": ids["Are you open on Sunday?"]}
    plan = publish(portal, ws, write_bundle(tmp_path / "c"), progress=False)
    assert not any(isinstance(c, CreateAnswer | UpdateAnswer | DeleteAnswer) for c in plan.changes)
    assert listed(portal, ws) == [("Are you open on Sunday?", "No, closed on Sundays.")]


@pytest.mark.parametrize(("answers", "message"), [
    ([{"question": "Q?", "answer": "A."}, {"question": "Q?", "answer": "B."}], "answers.json[1]: question: Q?"),
    ([{"question": "Q?"}], "answers.json[0]: answer"),
    ([{"question": "q" * 501, "answer": "A."}], "answers.json[0]: question"),
    ([{"question": "Q?", "answer": "a" * 4001}], "answers.json[0]: answer"),
    ([{"question": "Q?", "answer": "A.\x1b"}], "answers.json[0]: answer"),
    ([{"question": "Q?", "answer": "A.", "id": "ans_1"}], "answers.json[0]: id: unknown field"),
    ({"question": "Q?"}, "answers.json: must be a JSON array"),
])  # fmt: skip
def test_a_bad_answers_file_is_refused_naming_the_entry(tmp_path: Path, answers: object, message: str) -> None:
    with pytest.raises(BundleError, match=message.replace("?", r"\?").replace("[", r"\[").replace("]", r"\]")):
        load_bundle(write_bundle(tmp_path / "bad", answers_json=answers))
