"""What visitors say back, from the terminal (issue 40), against the runner: visitors chat through ``Brain.chat`` and
rate replies with ``Brain.feedback`` (rated, re-rated, withdrawn); then the owner runs ``workspace-client insights``
(a table of days with totals, top questions and sources; ``--json``), ``feedback --rating down``, ``unanswered``, and
answers the unanswered question in one step with ``answers add --from-turn``, which the agent uses from its next
turn (named in ``sources``); ``answers list|add --question|rm``. Refusals come back as the service's words."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from workspace_client import Brain, NotFoundError, Portal
from workspace_client.bundle.session import Session, save
from workspace_client.chat import ChatEvent
from workspace_client.cli import main

from tests.support.bundles import signed_in, started_service_without_demo
from tests.support.load import ops
from tests.support.runner import LocalService

pytestmark = pytest.mark.e2e

FAQ = (
    "# Opening hours\n\nWe open every day at 7 and close at 18. On Sundays we open at 8.\n\n"
    "# Oat milk\n\nOat milk is free with every coffee.\n"
)
OPEN = "When do you open on Sundays?"
NOTHING = "Qwyxz plorf vunk?"
ANSWER = "Qwyxz is our secret blend: ask at the counter."
COMMENT = "It did not say\twhen on Sundays."
INDEXED_WITHIN = 120.0  # seconds for the knowledge worker to read the new answer (a failure guard, not a measure)


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    yield from started_service_without_demo(tmp_path_factory.mktemp("insights-cli-state"))


@dataclass
class Shop:
    """A workspace that stores conversations, its agent (one document, read), a key, and a terminal signed in."""

    portal: Portal
    workspace: str
    agent: str
    key: str
    session: Path


def run(shop: Shop, capsys: pytest.CaptureFixture[str], *argv: str, status: int = 0) -> tuple[str, str]:
    """``workspace-client`` in-process; its exit status checked, its stdout and stderr."""
    capsys.readouterr()
    code = main([*argv, "--session-file", str(shop.session)])
    out, err = capsys.readouterr()
    assert code == status, (code, out, err)
    return out, err


@pytest.fixture(scope="module")
def shop(service: LocalService, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shop]:
    email = f"insights-{uuid.uuid4().hex[:12]}@example.com"
    portal = signed_in(service, email)
    assert ops(service, "set-plan", "--email", email, "--plan", "pro")["plan"] == "pro"
    assert ops(service, "grant", "--email", email, "--credits", "100", "--ref-id", "insights")["applied"] is True
    workspace = portal.create_workspace(name="Insights").workspace.id
    portal.update_workspace(workspace, store_conversations=True)
    root = tmp_path_factory.mktemp("insights-bundle")
    (root / "notes").mkdir()
    (root / "notes" / "faq.md").write_text(FAQ)
    (root / "agent.json").write_text(json.dumps({"slug": "counter", "name": "Counter"}))
    (root / "items.json").write_text(json.dumps([{"name": "Counter notes", "kind": "text", "file": "notes/faq.md"}]))
    session = root.parent / f"{root.name}-session.json"
    save(session, Session(service.portal, portal.session_cookie, None))
    assert main(["publish", str(root), "--workspace", workspace, "--no-progress", "--session-file", str(session)]) == 0
    agent = next(a.id for a in portal.list_agents(workspace).agents if a.slug == "counter")
    key = portal.mint_key(workspace, name="insights", rate_limit=600).key.key
    assert key is not None
    yield Shop(portal, workspace, agent, key, session)
    portal.close()


def ask(brain: Brain, agent: str, prompt: str, thread_key: str | None = None) -> ChatEvent:
    """One turn, read to the end of its stream; its final event (turn_id, thread_key, sources)."""
    final = None
    for event in brain.chat(agent, prompt, thread_key=thread_key):
        final = event
    assert final is not None and final.final and final.turn_id and final.thread_key
    return final


@dataclass
class Visits:
    """Two visitors' turns: ``first`` and ``again`` (Ava, one thread, the same question), ``lost`` (Bo: nothing
    matched)."""

    ava: Brain
    bo: Brain
    first: ChatEvent
    again: ChatEvent
    lost: ChatEvent


def test_insights_feedback_unanswered_and_an_answer_from_a_turn(
    service: LocalService, shop: Shop, capsys: pytest.CaptureFixture[str]
) -> None:
    with Brain(service.brain, key=shop.key, client_id=f"ava_{uuid.uuid4().hex}") as ava, \
            Brain(service.brain, key=shop.key, client_id=f"bo_{uuid.uuid4().hex}") as bo:  # fmt: skip
        first = ask(ava, shop.agent, OPEN)
        again = ask(ava, shop.agent, OPEN.upper() + "!!", thread_key=first.thread_key)  # the same question
        lost = ask(bo, shop.agent, NOTHING)
        assert first.sources and not lost.sources  # answered from the notes; nothing matched
        # Ratings as visitors make them: re-rated (the last one stands) and withdrawn (none stands).
        ava.feedback(shop.agent, first.turn_id or "", rating="up")
        ava.feedback(shop.agent, first.turn_id or "", rating="down", comment=COMMENT)
        ava.feedback(shop.agent, again.turn_id or "", rating="up")
        bo.feedback(shop.agent, lost.turn_id or "", rating="down")
        bo.feedback(shop.agent, lost.turn_id or "", rating=None)
        with pytest.raises(NotFoundError):  # another visitor's turn: as if it did not exist
            bo.feedback(shop.agent, first.turn_id or "", rating="up")
        visits = Visits(ava, bo, first, again, lost)
        check_insights(shop, capsys)
        check_feedback_and_unanswered(shop, capsys, visits)
        check_answers(shop, capsys, visits)


def check_insights(shop: Shop, capsys: pytest.CaptureFixture[str]) -> None:
    """``insights --json``: the service's JSON, whose totals equal the turns and ratings made; then the table."""
    in_it = ["--workspace", shop.workspace]
    insights = json.loads(run(shop, capsys, "insights", "counter", *in_it, "--days", "2", "--json")[0])
    assert len(insights["days"]) == 2
    names = ("turns", "threads", "visitors", "up", "down", "unanswered")
    totals = {name: sum(day[name] for day in insights["days"]) for name in names}
    assert totals == {"turns": 3, "threads": 2, "visitors": 2, "up": 1, "down": 1, "unanswered": 1}
    questions = {(q["count"], q["answered"]) for q in insights["topQuestions"]}
    assert questions == {(2, True), (1, False)}, insights["topQuestions"]
    assert [s["name"] for s in insights["topSources"]] == ["Counter notes"], insights["topSources"]
    # The same as a table: the days, then the total; the questions and the sources.
    table = run(shop, capsys, "insights", shop.agent, *in_it, "--days", "2")[0].splitlines()
    assert table[0].split() == ["date", *names]
    assert [line.split()[0] for line in table[1:4]] == [day["date"] for day in insights["days"]] + ["total"]
    assert table[3].split() == ["total", "3", "2", "2", "1", "1", "1"]
    assert table[5] == "top questions (2):" and table[6].split()[:2] == ["2", "answered"]
    assert table[7].split()[:2] == ["1", "unanswered"] and table[7].endswith(NOTHING)
    assert table[9] == "top sources (1):" and table[10].split()[1:4] == ["Counter", "notes", "(item"]


def check_feedback_and_unanswered(shop: Shop, capsys: pytest.CaptureFixture[str], visits: Visits) -> None:
    in_it = ["--workspace", shop.workspace]
    # feedback --rating down: one line, its time and turn first, the comment on one line.
    (line,) = run(shop, capsys, "feedback", "counter", *in_it, "--rating", "down")[0].splitlines()
    created, rating, turn, client, prompt, comment = line.split("\t")
    assert (rating, turn, client, prompt) == ("down", visits.first.turn_id, visits.ava.client_id, OPEN)
    assert comment == "It did not say when on Sundays." and created.endswith("Z")
    rated = run(shop, capsys, "feedback", "counter", *in_it)[0].splitlines()
    assert [row.split("\t")[1:3] for row in rated] == [
        ["up", visits.again.turn_id],
        ["down", visits.first.turn_id],
    ]  # newest first; fmt: skip
    # unanswered: the turn nothing matched.
    (line,) = run(shop, capsys, "unanswered", "counter", *in_it)[0].splitlines()
    assert line.split("\t")[1:] == [visits.lost.turn_id, visits.bo.client_id, NOTHING]


def check_answers(shop: Shop, capsys: pytest.CaptureFixture[str], visits: Visits) -> None:
    """``answers add --from-turn`` answers the unanswered question in one step; the agent uses it from its next turn
    (once its knowledge has read it), named in ``sources``. Then ``add --question``, ``list``, ``rm``."""
    in_it = ["--workspace", shop.workspace]
    out, _ = run(shop, capsys, "answers", "add", "counter", *in_it, "--from-turn", visits.lost.turn_id or "",
                 "--answer", ANSWER)  # fmt: skip
    answer_id, question, answered, _ = out.rstrip("\n").split("\t")
    assert answer_id.startswith("ans_") and (question, answered) == (NOTHING, ANSWER)
    deadline = time.monotonic() + INDEXED_WITHIN
    while not any(p.source.answer_id == answer_id for p in
                  shop.portal.knowledge_search(shop.workspace, shop.agent, query=NOTHING).passages):  # fmt: skip
        assert time.monotonic() < deadline, "the answer was never indexed"
        time.sleep(0.5)
    next_turn = ask(visits.bo, shop.agent, NOTHING)
    assert [(s.kind, s.answer_id, s.name) for s in next_turn.sources][:1] == [("answer", answer_id, NOTHING)]

    out, _ = run(shop, capsys, "answers", "add", "counter", *in_it, "--question", "Do you have oat milk?",
                 "--answer", "Yes, free with every coffee.")  # fmt: skip
    second = out.split("\t")[0]
    listed = [row.split("\t")[:3] for row in run(shop, capsys, "answers", "list", "counter", *in_it)[0].splitlines()]
    assert listed == [[second, "Do you have oat milk?", "Yes, free with every coffee."],
                      [answer_id, NOTHING, ANSWER]]  # fmt: skip
    removed = json.loads(run(shop, capsys, "answers", "rm", "counter", answer_id, *in_it, "--json")[0])
    assert removed == {"deleted": answer_id}
    remaining = json.loads(run(shop, capsys, "answers", "list", "counter", *in_it, "--json")[0])
    assert [a["id"] for a in remaining] == [second]


def test_refusals_are_the_services_words(shop: Shop, capsys: pytest.CaptureFixture[str]) -> None:
    in_it = ["--workspace", shop.workspace]
    _, err = run(shop, capsys, "answers", "add", "counter", *in_it, "--from-turn", "turn_00000000000000000000000000",
                 "--answer", "x", status=1)  # fmt: skip
    assert "(NOT_FOUND, HTTP 404)" in err, err
    _, err = run(shop, capsys, "insights", "counter", *in_it, "--days", "91", status=1)
    assert "(VALIDATION_ERROR, HTTP 400)" in err, err
    _, err = run(shop, capsys, "feedback", "nobody", *in_it, status=1)
    assert "no agent nobody in workspace" in err, err
    with pytest.raises(SystemExit) as usage:  # argparse's: neither --question nor --from-turn
        main(["answers", "add", "counter", *in_it, "--answer", "x", "--session-file", str(shop.session)])
    assert usage.value.code == 2
    assert "one of the arguments --question --from-turn is required" in capsys.readouterr().err
