"""A visitor rates a reply in the brand widget, in headless Chromium (issue 40): thumbs up and down under each
finished reply, for the turn its stream's ``start`` named; a thumbs-down opens a comment box; the same thumb pressed
again withdraws the rating. Each rating is read back as the owner reads it (the management plane's feedback list):
what the widget shows is what the service holds. A refused rating is said in words, the thumbs go back to what the
service holds, and the widget keeps working.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.brand_widget import Page, chat, loaded, open_page, wait_for
from tests.support.runner import LocalService, portal, sign_in

pytestmark = pytest.mark.browser

QUESTION = "When are you open on Sunday?"
COMMENT = "The Sunday hours were wrong:\nwe open at 9."
# The feedback bar under the last finished reply: [turnId, rating, state, [[rating, aria-pressed, aria-label,
# disabled], …], comment box shown, note, note's kind], once it is there and no request is under way.
BAR = """
const bars = document.querySelectorAll('.bw-log .bw-feedback');
const bar = bars[bars.length - 1];
if (!bar || bar.dataset.state !== 'idle' || bar.getAttribute('aria-busy')) return null;
const note = bar.querySelector('.bw-feedback-status');
return [bar.dataset.turnId, bar.dataset.rating, bar.dataset.state,
        [...bar.querySelectorAll('.bw-thumb')].map((b) => [b.dataset.rating, b.getAttribute('aria-pressed'),
                                                           b.getAttribute('aria-label'), b.disabled]),
        !bar.querySelector('.bw-feedback-comment').hidden, note.textContent, note.dataset.kind];
"""
CLICK = "document.querySelectorAll('.bw-log .bw-feedback')[arguments[0]].querySelector(arguments[1]).click()"
LAST_REPLY_DONE = (
    "const r = document.querySelectorAll('.bw-reply'); return r.length === arguments[0] && "
    "r[r.length - 1].dataset.state === 'done' && document.querySelectorAll('.bw-feedback').length === arguments[0]"
)


def bar(driver: Any, after: str) -> list[Any]:
    """The feedback bar once the last click's request is answered (its note says so) and the thumbs are enabled."""
    return wait_for(driver, f"const got = (() => {{ {BAR} }})(); return got && got[5] && ({after}) ? got : null")


def click(driver: Any, selector: str, index: int = 0) -> None:
    """Clear the bar's note first, so the next ``bar`` waits for this click's answer, not the last one's."""
    driver.execute_script(
        "document.querySelectorAll('.bw-log .bw-feedback')[arguments[0]].querySelector('.bw-feedback-status')"
        ".textContent = ''",
        index,
    )
    driver.execute_script(CLICK, index, selector)


def stored(service: LocalService, jwt: str, workspace_id: str, agent_id: str, turn_id: str) -> list[dict[str, Any]]:
    """The owner's feedback list (newest first) for this turn: what the service holds, as the owner sees it."""
    path = f"/api/workspaces/{workspace_id}/agents/{agent_id}/feedback?limit=100"
    listed = portal(service, "GET", path, jwt)
    assert listed.status == 200, listed.body
    return [entry for entry in listed.json()["feedback"] if entry["turnId"] == turn_id]


@pytest.fixture(scope="module")
def owner_jwt(service: LocalService, first: dict[str, Any]) -> str:
    return sign_in(service, first["ownerEmail"])[1]


def test_thumbs_under_a_reply_rate_rerate_comment_and_withdraw_and_the_service_holds_each(
    driver: Any, page: Page, service: LocalService, first: dict[str, Any], owner_jwt: str
) -> None:
    agent_id = first["agents"][0]["id"]
    open_page(driver, page)
    loaded(driver)
    chat(driver, QUESTION)
    wait_for(driver, LAST_REPLY_DONE, 1)
    client = driver.execute_script("return localStorage.getItem('brandWidget.client')")
    placed = """
        const reply = document.querySelector('.bw-reply'), bar = document.querySelector('.bw-feedback');
        let next = reply.nextElementSibling;
        if (next && next.matches('.bw-sources')) next = next.nextElementSibling;
        return [next === bar, reply.contains(bar), bar.getAttribute('role'), bar.getAttribute('aria-label')];
    """
    # Under the reply (after its sources), never inside it: the reply's text is what goes back as history.
    assert driver.execute_script(placed) == [True, False, "group", "Rate this reply"]
    turn_id, rating, _, thumbs, commenting, note, _ = wait_for(driver, f"return (() => {{ {BAR} }})()")
    assert turn_id.startswith("turn_")  # the start event's turnId
    assert (rating, commenting, note) == ("", False, "")
    assert thumbs == [["up", "false", "Good reply", False], ["down", "false", "Bad reply", False]]
    assert stored(service, owner_jwt, first["id"], agent_id, turn_id) == []

    # Thumbs up: pressed, and held by the service with this visitor's id and the turn's question.
    click(driver, ".bw-thumb-up")
    _, rating, _, thumbs, commenting, note, kind = bar(driver, "got[1] === 'up'")
    assert (rating, [t[1] for t in thumbs], commenting, kind) == ("up", ["true", "false"], False, "info"), note
    (held,) = stored(service, owner_jwt, first["id"], agent_id, turn_id)
    assert (held["rating"], held["client"], held.get("comment")) == ("up", client, None)
    assert held.get("prompt") in (None, QUESTION)  # the prompt only where the workspace stores conversations

    # Thumbs down instead: re-rated (one rating per turn), and the comment box opens, focused, labelled.
    click(driver, ".bw-thumb-down")
    _, rating, _, thumbs, commenting, _, _ = bar(driver, "got[1] === 'down' && got[4]")
    assert (rating, [t[1] for t in thumbs], commenting) == ("down", ["false", "true"], True)
    box = """
        const text = document.querySelector('.bw-feedback-text');
        const label = document.querySelector(`label[for="${text.id}"]`);
        return [document.activeElement === text, label ? label.textContent : null, text.maxLength];
    """
    focused, label, max_length = driver.execute_script(box)
    assert focused and label and label.startswith("What was wrong") and max_length == 1000
    assert [entry["rating"] for entry in stored(service, owner_jwt, first["id"], agent_id, turn_id)] == ["down"]

    # The comment, sent: held with the thumbs-down; the box closes.
    from selenium.webdriver.common.by import By

    driver.find_element(By.CSS_SELECTOR, ".bw-feedback-text").send_keys(COMMENT)
    click(driver, ".bw-feedback-send")
    _, rating, _, _, commenting, note, kind = bar(driver, "got[1] === 'down' && !got[4]")
    assert (rating, commenting, kind) == ("down", False, "info"), note
    (held,) = stored(service, owner_jwt, first["id"], agent_id, turn_id)
    assert (held["rating"], held["comment"], held["client"]) == ("down", COMMENT, client)

    # The same thumb again: withdrawn (rating null), nothing pressed, nothing held.
    click(driver, ".bw-thumb-down")
    _, rating, _, thumbs, commenting, note, kind = bar(driver, "got[1] === ''")
    assert (rating, [t[1] for t in thumbs], commenting, kind) == ("", ["false", "false"], False, "info"), note
    assert note == "Rating withdrawn."
    assert stored(service, owner_jwt, first["id"], agent_id, turn_id) == []

    # A second reply has thumbs of its own, for its own turn.
    chat(driver, "And on Saturday?")
    wait_for(driver, LAST_REPLY_DONE, 2)
    turns = driver.execute_script("return [...document.querySelectorAll('.bw-feedback')].map((b) => b.dataset.turnId)")
    assert len(set(turns)) == 2 and turns[0] == turn_id
    click(driver, ".bw-thumb-up", 1)
    second = bar(driver, "got[1] === 'up'")[0]
    assert [e["rating"] for e in stored(service, owner_jwt, first["id"], agent_id, second)] == ["up"]
    assert stored(service, owner_jwt, first["id"], agent_id, turn_id) == []  # the first turn's withdrawal stands


def test_a_refused_rating_is_said_in_words_and_the_widget_keeps_working(
    driver: Any, page: Page, service: LocalService, first: dict[str, Any], owner_jwt: str
) -> None:
    agent_id = first["agents"][0]["id"]
    open_page(driver, page)
    loaded(driver)
    chat(driver, QUESTION)
    wait_for(driver, LAST_REPLY_DONE, 1)
    # The feedback route refuses from now on, as a flood of ratings (429) would; then the network fails.
    driver.execute_script("""
        const original = window.fetch;
        window.__refuse = 'limited';
        window.fetch = (url, options) => {
          if (!String(url).endsWith('/feedback') || !window.__refuse) return original(url, options);
          if (window.__refuse === 'offline') return Promise.reject(new TypeError('Failed to fetch'));
          return Promise.resolve(new Response(JSON.stringify({error: 'Too many requests', code: 'RATE_LIMITED'}),
            {status: 429, headers: {'Content-Type': 'application/json', 'Retry-After': '17'}}));
        };
    """)
    click(driver, ".bw-thumb-down")
    turn_id, rating, _, thumbs, commenting, note, _ = bar(driver, "got[6] === 'error'")
    assert note == "Too many ratings. Please wait 17 s and try again."
    assert (rating, [t[1] for t in thumbs], commenting) == ("", ["false", "false"], False)  # as the service holds it
    assert driver.execute_script("return document.querySelector('.bw-feedback').dataset.error") == "RATE_LIMITED"
    driver.execute_script("window.__refuse = 'offline'")
    click(driver, ".bw-thumb-up")
    *_, note, _ = bar(driver, "got[6] === 'error'")
    assert note.startswith("Your rating was not saved: The brand service could not be reached"), note
    assert stored(service, owner_jwt, first["id"], agent_id, turn_id) == []

    # The service reachable again: the same bar rates, and the chat goes on.
    driver.execute_script("window.__refuse = null")
    click(driver, ".bw-thumb-up")
    assert bar(driver, "got[1] === 'up'")[6] == "info"
    assert driver.execute_script("return document.querySelector('.bw-feedback').dataset.error") is None
    assert [e["rating"] for e in stored(service, owner_jwt, first["id"], agent_id, turn_id)] == ["up"]
    chat(driver, "And on Saturday?")
    wait_for(driver, LAST_REPLY_DONE, 2)


def test_a_turn_the_service_no_longer_has_is_said_in_words(driver: Any, page: Page) -> None:
    """The service's own 404 (an unknown turn, as one past its 7 days is): the bar says the reply can no longer be
    rated. The page's fetch sends the rating for a turn id nobody was given, so the real route answers."""
    open_page(driver, page)
    loaded(driver)
    chat(driver, QUESTION)
    wait_for(driver, LAST_REPLY_DONE, 1)
    driver.execute_script("""
        const original = window.fetch;
        window.fetch = (url, options) => original(String(url).replace(/\\/turns\\/[^/]+\\/feedback$/,
                                                                      '/turns/turn_00000000000000000000000000/feedback'),
                                                  options);
    """)
    click(driver, ".bw-thumb-up")
    _, rating, _, thumbs, _, note, _ = bar(driver, "got[6] === 'error'")
    assert note == "This reply can no longer be rated (replies can be rated for 7 days)."
    assert (rating, [t[1] for t in thumbs]) == ("", ["false", "false"])
