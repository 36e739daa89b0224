"""The console's insights tab (issue 41): visitors chat through the read plane and rate replies; the owner's charts
(turns, threads and visitors; thumbs and unanswered; the agent's usage) are drawn from the API's numbers (the test
reads the table each chart was given and compares it with the API's answer, for 30 days and then 7), the unanswered
questions and thumbs-down are the API's, and an unanswered question's "Write the answer" lands on the Answers tab's
form for that turn."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.console import Console
from tests.support.console_visits import HOURS_QUESTION, Shop, ask, shop

pytestmark = pytest.mark.browser

OWNER = "console-insights@example.com"
NOTHING = "Qwyxz plorf vunk?"

ACTIVITY = {"Turns": "turns", "Threads": "threads", "Visitors": "visitors"}
RATINGS = {"Thumbs up": "up", "Thumbs down": "down", "Unanswered": "unanswered"}
USAGE = {"Requests": "requests", "Chat turns": "chatTurns", "Credits": "credits", "Rate limited": "rateLimited"}


def table(days: list[dict[str, Any]], series: dict[str, str]) -> dict[str, dict[str, str]]:
    """What a chart's table must hold for the API's ``days``: a row a day, a cell a series."""
    return {d["date"]: {label: str(d[name]) for label, name in series.items()} for d in days}


def charts_match(console: Console, scene: Shop, days: int) -> None:
    insights = scene.api("GET", f"~/insights?days={days}")["days"]
    usage = scene.api("GET", f"~/usage?days={days}")["days"]
    assert len(insights) == len(usage) == days
    drawn = {"insights-activity": table(insights, ACTIVITY), "insights-ratings": table(insights, RATINGS),
             "agent-usage": table(usage, USAGE)}  # fmt: skip
    for chart, numbers in drawn.items():
        console.until(f"chart {chart} over {days} days", lambda: console.chart_numbers(chart) == numbers)  # noqa: B023


def turn_ids(console: Console, listing: str) -> list[str]:
    from selenium.webdriver.common.by import By

    return [
        li.get_attribute("data-turn")
        for li in console.driver.find_elements(By.CSS_SELECTOR, f"ul[data-testid={listing}] > li")
    ]


def test_charts_from_the_apis_numbers_and_write_the_answer_of_an_unanswered_question(console: Console) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    scene = shop(console, OWNER)
    with scene.visitor("ava") as ava, scene.visitor("bo") as bo, scene.visitor("cy") as cy:
        answered = ask(ava, scene, HOURS_QUESTION)
        ava.feedback(scene.agent, answered.turn_id or "", rating="up")
        lost = ask(bo, scene, NOTHING)
        bo.feedback(scene.agent, lost.turn_id or "", rating="down", comment="Nothing about plorf.")
        again = ask(cy, scene, NOTHING)
    insights = scene.api("GET", "~/insights?days=30")["days"]
    totals = {name: sum(d[name] for d in insights) for name in ("turns", "visitors", "up", "down", "unanswered")}
    assert totals == {"turns": 3, "visitors": 3, "up": 1, "down": 1, "unanswered": 2}  # the scene, as the API counts

    console.sign_in(OWNER)
    console.open(f"/w/{scene.workspace}/agents/{scene.agent}/insights")
    console.wait_role("heading", "Insights")
    charts_match(console, scene, 30)
    unanswered = [q["turnId"] for q in scene.api("GET", "~/unanswered?limit=20")["questions"]]
    assert unanswered == [again.turn_id, lost.turn_id]
    console.until("the unanswered questions", lambda: turn_ids(console, "unanswered") == unanswered)
    down = [f["turnId"] for f in scene.api("GET", "~/feedback?rating=down&limit=20")["feedback"]]
    assert down == [lost.turn_id]
    console.until("the thumbs down", lambda: turn_ids(console, "thumbs-down") == down)
    console.wait_text("Nothing about plorf.")
    console.screenshot("insights")
    console.axe("insights")

    Select(console.field("Period")).select_by_value("7")
    charts_match(console, scene, 7)

    # "Write the answer" of Bo's unanswered question: the Answers tab's form for that very turn.
    link = console.driver.find_element(By.CSS_SELECTOR, f'ul[data-testid=unanswered] li[data-turn="{lost.turn_id}"] a')
    assert link.accessible_name == f"Write the answer to “{NOTHING}”"
    link.click()
    answers = f"/w/{scene.workspace}/agents/{scene.agent}/answers?fromTurn={lost.turn_id}"
    console.until("the Answers tab", lambda: console.url_path().startswith(answers))
    form = f'form[data-turn="{lost.turn_id}"]'
    shown = console.until("the answer's form for Bo's turn", lambda: console.driver.find_element(By.CSS_SELECTOR, form))
    assert NOTHING in shown.text
    console.role("textbox", "Your answer")
