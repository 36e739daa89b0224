"""The brand widget in headless Chromium: a page on its own origin, embedding clients/web/brand-widget.js.

What a visitor sees and the browser really does: the chat reply grows in the DOM as the NDJSON
arrives, signed media URLs load images and play and seek a video (Range), a page on an origin the
key does not allow is refused, the stop button aborts a stream, and 402/429/stream errors show.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.browser.conftest import ARTIFACTS, Page, Pages, free_port
from tests.e2e.conftest import LocalService

pytestmark = pytest.mark.browser

WAIT = 30
PROMPT = "Which events are coming up, and what did you launch recently?"
# Records the last reply's text and state on every mutation of the conversation (window.__snapshots), and
# counts the mutation records (window.__mutations); with ``stopAfterText``, clicks Stop once text appears.
OBSERVE_REPLY = """
const root = document.querySelectorAll('.bw')[arguments[0] || 0];
const log = root.querySelector('.bw-log');
const stopAfterText = arguments[1];
window.__snapshots = []; window.__mutations = 0;
new MutationObserver((records) => {
  window.__mutations += records.length;
  const replies = log.querySelectorAll('.bw-reply');
  const reply = replies[replies.length - 1];
  if (!reply) return;
  window.__snapshots.push({text: reply.textContent, state: reply.dataset.state, at: performance.now()});
  if (stopAfterText && reply.textContent && reply.dataset.state === 'streaming') root.querySelector('.bw-stop').click();
}).observe(log, {subtree: true, childList: true, characterData: true, attributes: true});
"""


def wait_for(driver: Any, script: str, *args: Any, timeout: float = WAIT) -> Any:
    """Poll ``script`` (a JS expression body returning a value) until it is truthy; return that value."""
    deadline = time.monotonic() + timeout
    while True:
        value = driver.execute_script(script, *args)
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for: {script}"
        time.sleep(0.05)


def network(driver: Any) -> list[dict[str, Any]]:
    """The DevTools network events since the last call (the performance log is drained on read)."""
    events = [json.loads(entry["message"])["message"] for entry in driver.get_log("performance")]
    return [e for e in events if e["method"].startswith("Network.")]


def responses(events: list[dict[str, Any]], fragment: str) -> list[dict[str, Any]]:
    return [
        e["params"]["response"] | {"requestId": e["params"]["requestId"]}
        for e in events
        if e["method"] == "Network.responseReceived"
        and e["params"].get("type") != "Preflight"  # the CORS preflight (OPTIONS) of the same URL
        and fragment in e["params"]["response"]["url"]
    ]


def raw_answers(events: list[dict[str, Any]], fragment: str) -> list[tuple[int, dict[str, str]]]:
    """(status, lower-cased headers) of every non-preflight answer to a URL with ``fragment``, as received,
    including those CORS kept from the page (they never become a ``responseReceived``)."""
    urls = {
        e["params"]["requestId"]: e["params"]["request"]["url"]
        for e in events
        if e["method"] == "Network.requestWillBeSent" and e["params"]["request"]["method"] != "OPTIONS"
    }
    return [
        (e["params"]["statusCode"], {k.lower(): v for k, v in e["params"]["headers"].items()})
        for e in events
        if e["method"] == "Network.responseReceivedExtraInfo" and fragment in urls.get(e["params"]["requestId"], "")
    ]


def open_page(driver: Any, page: Page) -> None:
    network(driver)  # drop the previous page's events: what follows is this page's
    driver.get(page.url)
    wait_for(driver, "return document.querySelector('.bw') !== null")


def loaded(driver: Any) -> None:
    """The wrap and the feed are in: a greeting and tiles, and no error shown."""
    wait_for(driver, "return document.querySelector('.bw-grid .bw-tile') || document.querySelector('.bw')"
                     ".dataset.error")  # fmt: skip
    assert driver.execute_script("return document.querySelector('.bw').dataset.error || ''") == ""


def chat(driver: Any, prompt: str, index: int = 0) -> None:
    from selenium.webdriver.common.by import By

    root = driver.find_elements(By.CSS_SELECTOR, ".bw")[index]
    root.find_element(By.CSS_SELECTOR, ".bw-input").send_keys(prompt)
    root.find_element(By.CSS_SELECTOR, ".bw-send").click()


def chat_status(driver: Any, index: int = 0) -> str:
    return wait_for(driver, "return document.querySelectorAll('.bw')[arguments[0]]"
                            ".querySelector('.bw-chat-status').textContent", index)  # fmt: skip


@pytest.fixture(scope="module")
def first(service: LocalService) -> dict[str, Any]:
    return service.demo["workspaces"][0]


@pytest.fixture(scope="module")
def page(pages: Pages, mint_key: Callable[..., str], first: dict[str, Any]) -> Page:
    """The brand's page, on an origin its key allows."""
    port = free_port()
    key = mint_key(0, [f"http://127.0.0.1:{port}"])
    return pages.serve(key=key, agent_id=first["agents"][0]["id"], port=port)


def test_the_chat_reply_grows_in_the_page_as_it_streams(driver: Any, page: Page, service: LocalService) -> None:
    open_page(driver, page)
    loaded(driver)
    wrap_greeting = driver.execute_script("return document.querySelector('.bw-greeting').textContent")
    assert wrap_greeting.startswith("Hi! I'm the Northwind Barista.")
    # The wrap's theme reached the page (Northwind's background colour #faedcd).
    background = driver.execute_script("return getComputedStyle(document.querySelector('.bw')).backgroundColor")
    assert background == "rgb(250, 237, 205)"
    client = driver.execute_script("return localStorage.getItem('brandWidget.client')")
    assert client and 16 <= len(client) <= 128

    driver.execute_script(OBSERVE_REPLY, 0, False)
    started = time.monotonic()
    chat(driver, PROMPT)
    wait_for(driver, "const r = document.querySelector('.bw-reply'); return r && r.dataset.state === 'done'")
    took = time.monotonic() - started
    snapshots = driver.execute_script("return window.__snapshots")
    mutations = driver.execute_script("return window.__mutations")
    final = driver.execute_script("return document.querySelector('.bw-reply').textContent")

    # Several distinct, growing texts were on screen before the stream's end: rendered as it arrived.
    streaming = [s["text"] for s in snapshots if s["state"] == "streaming" and s["text"]]
    distinct = list(dict.fromkeys(streaming))
    assert len(distinct) >= 3, distinct
    assert all(later.startswith(earlier) for earlier, later in itertools.pairwise(distinct))
    states = [s["state"] for s in snapshots]
    assert "done" in states and states.index("done") > max(i for i, s in enumerate(states) if s == "streaming")
    assert len(distinct[0]) < len(final)
    # The final text is the whole reply: the same question asked outside the browser (the offline model is
    # deterministic) streams the same deltas.
    key = driver.execute_script("return document.querySelector('script[data-key]').dataset.key")
    body = json.dumps({"prompt": PROMPT, "client": "browser_test_reference"}).encode()
    agent = driver.execute_script("return document.querySelector('script[data-key]').dataset.agent")
    reference = service.request(
        "POST", f"{service.brain}/v1/agent/{agent}/chat", headers={"Authorization": f"Bearer {key}"}, body=body
    )
    lines = [json.loads(line) for line in reference.body.splitlines()]
    assert (reference.status, lines[-1]["type"]) == (200, "done")
    assert final == "".join(line.get("text", "") for line in lines if line["type"] == "delta")
    assert final.startswith("Hi, I'm Northwind Barista")
    events = network(driver)
    # The visitor's id went with the turn, and it survives a reload (localStorage).
    requests = [e["params"]["request"] for e in events if e["method"] == "Network.requestWillBeSent"]
    sent = [r for r in requests if r["url"].endswith("/chat") and r["method"] == "POST"]
    assert json.loads(sent[0]["postData"])["client"] == client
    driver.refresh()
    wait_for(driver, "return document.querySelector('.bw') !== null")
    assert driver.execute_script("return localStorage.getItem('brandWidget.client')") == client
    print(f"\nchat reply: {len(distinct)} distinct texts, {mutations} DOM mutation records, {took:.2f} s")


def test_images_load_and_a_video_plays_and_seeks(driver: Any, page: Page) -> None:
    open_page(driver, page)
    loaded(driver)
    # Every image of the grid decodes (each scrolled into view: they load lazily).
    count = driver.execute_script("return document.querySelectorAll('.bw-grid img, .bw-avatar').length")
    assert count >= 3
    for index in range(count):
        driver.execute_script("document.querySelectorAll('.bw-grid img, .bw-avatar')[arguments[0]]"
                              ".scrollIntoView({block: 'center'})", index)  # fmt: skip
        wait_for(driver, "const i = document.querySelectorAll('.bw-grid img, .bw-avatar')[arguments[0]];"
                         "return i.complete && i.naturalWidth > 0", index)  # fmt: skip
    # A video plays (muted, so the autoplay policy allows play()) and its time advances.
    video = "const v = document.querySelector('.bw-grid video');"
    driver.execute_script(video + "v.scrollIntoView({block: 'center'}); v.muted = true;")
    assert driver.execute_async_script(video + "v.play().then(() => arguments[0]('playing'), "
                                               "(e) => arguments[0](String(e)))") == "playing"  # fmt: skip
    wait_for(driver, video + "return v.currentTime > 0.5")
    # A seek lands where asked and playback goes on from there (the bytes come by Range).
    seeked = driver.execute_async_script(
        video + "v.addEventListener('seeked', () => arguments[0](v.currentTime), {once: true}); v.currentTime = 5;"
    )
    assert 4.9 <= seeked <= 5.2
    wait_for(driver, video + "return v.currentTime > 5.4 || v.ended")
    events = network(driver)
    src = driver.execute_script(video + "return v.currentSrc")
    partial = [r for r in responses(events, src.split("?", 1)[0]) if r["status"] == 206]
    assert partial, "the video was never read by Range"
    # The raw key never travels in a URL.
    key = driver.execute_script("return document.querySelector('script[data-key]').dataset.key")
    urls = [e["params"]["request"]["url"] for e in events if e["method"] == "Network.requestWillBeSent"]
    assert urls and not any(key in url for url in urls)
    ARTIFACTS.mkdir(exist_ok=True)
    driver.execute_script("window.scrollTo(0, 0)")
    shot = ARTIFACTS / "brand-page.png"
    driver.save_screenshot(str(shot))
    print(f"\nscreenshot: {shot}")


def test_a_page_on_an_origin_the_key_does_not_allow_is_refused(
    driver: Any, pages: Pages, mint_key: Callable[..., str], first: dict[str, Any], service: LocalService
) -> None:
    allowed = f"http://127.0.0.1:{free_port()}"
    key = mint_key(0, [allowed])
    elsewhere = pages.serve(key=key, agent_id=first["agents"][0]["id"])
    assert elsewhere.origin != allowed
    open_page(driver, elsewhere)
    status = wait_for(driver, "const s = document.querySelector('.bw-status');"
                              "return s.dataset.kind === 'error' && s.textContent")  # fmt: skip
    assert "origin" in status and "ORIGIN_NOT_ALLOWED" in status
    assert driver.execute_script("return document.querySelector('.bw').dataset.error") == "UNREACHABLE"
    assert driver.execute_script("return document.querySelectorAll('.bw-grid .bw-tile').length") == 0
    # What the browser got: 403, with no CORS grant, so the page could not read it.
    events = network(driver)
    refused = raw_answers(events, "/wrap")
    assert [status for status, _ in refused] == [403]
    assert "access-control-allow-origin" not in refused[0][1]
    blocked = [e["params"] for e in events if e["method"] == "Network.loadingFailed"]
    assert any(b.get("corsErrorStatus") for b in blocked), blocked
    # The same request from outside a browser shows its code.
    reply = service.brain_get(f"/v1/agent/{first['agents'][0]['id']}/wrap", key, Origin=elsewhere.origin)
    assert (reply.status, reply.json()["code"], reply.header("access-control-allow-origin")) == (
        403, "ORIGIN_NOT_ALLOWED", None)  # fmt: skip


def test_stop_aborts_the_stream_and_429_shows_the_wait(
    driver: Any, pages: Pages, mint_key: Callable[..., str], first: dict[str, Any], service: LocalService
) -> None:
    port = free_port()
    # Signed media URLs count against their key too: a page view costs ~25 requests, so the limit leaves room.
    limited = mint_key(0, [f"http://127.0.0.1:{port}"], rate_limit=RATE_LIMIT)
    page = pages.serve(key=limited, agent_id=first["agents"][0]["id"], port=port)
    open_page(driver, page)
    loaded(driver)
    driver.execute_script(OBSERVE_REPLY, 0, True)  # Stop is clicked as soon as the first text shows
    chat(driver, PROMPT)
    wait_for(driver, "const r = document.querySelector('.bw-reply'); return r && r.dataset.state === 'stopped'")
    assert chat_status(driver) == "Stopped."
    stopped_at = driver.execute_script("return document.querySelector('.bw-reply').textContent")
    time.sleep(0.5)
    assert driver.execute_script("return document.querySelector('.bw-reply').textContent") == stopped_at
    assert "done" not in [s["state"] for s in driver.execute_script("return window.__snapshots")]
    # The key's minute is used up elsewhere; the visitor's next message is refused and told how long to wait.
    for _ in range(RATE_LIMIT):
        if service.brain_get("/v1/agent/_whoami", limited).status == 429:
            break
    else:
        pytest.fail(f"{RATE_LIMIT} requests never reached the key's limit")
    chat(driver, "Hello!")
    message = wait_for(driver, "const s = document.querySelector('.bw-chat-status').textContent;"
                               "return s.startsWith('Too many') && s")  # fmt: skip
    assert message.startswith("Too many messages. Please wait ") and message.endswith(" s before sending another.")
    assert int(message.split("wait ")[1].split(" ")[0]) >= 1
    refused = raw_answers(network(driver), "/chat")
    assert refused[-1][0] == 429 and int(refused[-1][1]["retry-after"]) >= 1


RATE_LIMIT = 60


def test_402_and_stream_errors_are_shown(
    driver: Any, pages: Pages, mint_key: Callable[..., str], service: LocalService, first: dict[str, Any]
) -> None:
    # The second demo workspace's owner has no credits.
    second = service.demo["workspaces"][1]
    port = free_port()
    broke = pages.serve(key=mint_key(1, [f"http://127.0.0.1:{port}"]), agent_id=second["agents"][0]["id"], port=port)
    open_page(driver, broke)
    loaded(driver)
    chat(driver, "Hello!")
    assert chat_status(driver) == "The assistant is unavailable right now: its owner has run out of credits."
    assert driver.execute_script("return document.querySelector('.bw').dataset.error") == "INSUFFICIENT_CREDITS"
    assert driver.execute_script("return document.querySelectorAll('.bw-reply').length") == 0
    # A model failure after the stream started is the stream's last line: shown, not swallowed.
    port = free_port()
    page = pages.serve(key=mint_key(0, [f"http://127.0.0.1:{port}"]), agent_id=first["agents"][0]["id"], port=port)
    open_page(driver, page)
    loaded(driver)
    chat(driver, "Tell me about events [[offline-error]]")
    assert chat_status(driver)
    assert driver.execute_script("return document.querySelector('.bw-reply').dataset.state") == "failed"


def test_two_widgets_on_one_page_work_side_by_side(driver: Any, page: Page) -> None:
    open_page(driver, page)
    loaded(driver)
    # A second embed, added as a brand's page would (the page's CSP allows only its own scripts).
    driver.execute_script("""
        const box = document.createElement('div'); box.id = 'second'; document.body.append(box);
        const first = document.querySelector('script[data-key]');
        const tag = document.createElement('script');
        for (const name of ['brainUrl', 'key', 'agent']) tag.dataset[name] = first.dataset[name];
        tag.dataset.target = '#second'; tag.src = first.src; document.body.append(tag);
    """)
    wait_for(driver, "return document.querySelectorAll('#second .bw-grid .bw-tile').length > 0")
    ids = driver.execute_script("return [...document.querySelectorAll('.bw-input')].map((i) => i.id)")
    assert len(ids) == 2 and len(set(ids)) == 2
    assert driver.execute_script("return document.querySelectorAll('link[data-brand-widget]').length") == 1
    assert driver.execute_script("return typeof window.Widget === 'undefined' && typeof window.Api === 'undefined'")
    driver.execute_script(OBSERVE_REPLY, 1, False)
    chat(driver, "Hi!", index=1)
    wait_for(driver, "const r = document.querySelector('#second .bw-reply'); return r && r.dataset.state === 'done'")
    assert driver.execute_script("return document.querySelectorAll('.bw')[0].querySelectorAll('.bw-reply').length") == 0


HOSTILE = '<img src="x" onerror="window.__xss = 1">Welcome <b>friend</b> & co'


def test_api_text_is_rendered_as_text_never_as_markup(
    driver: Any, pages: Pages, mint_key: Callable[..., str], service: LocalService
) -> None:
    """A published greeting full of markup shows as those characters: no element is made from API data."""
    from local.template import Stack, load

    second = service.demo["workspaces"][1]  # its wrap is read by no other test here
    agent = second["agents"][0]["id"]
    wrap = json.loads(service.brain_get(f"/v1/agent/{agent}/wrap", second["key"]).body)
    wrap["greeting"] = HOSTILE
    service.aws("dynamodb").update_item(
        TableName=Stack(load()).physical_name("MainTable"),
        Key={"pk": {"S": f"WS#{second['id']}"}, "sk": {"S": f"AGENT#{agent}"}},
        UpdateExpression="SET wrapJson = :wrap",
        ExpressionAttributeValues={":wrap": {"S": json.dumps(wrap)}},
    )
    port = free_port()
    page = pages.serve(key=mint_key(1, [f"http://127.0.0.1:{port}"]), agent_id=agent, port=port)
    open_page(driver, page)
    loaded(driver)
    greeting = "document.querySelector('.bw-greeting')"
    assert driver.execute_script(f"return {greeting}.textContent") == HOSTILE
    assert driver.execute_script(f"return {greeting}.children.length") == 0
    stray = "return document.querySelectorAll('.bw img:not(.bw-avatar):not(.bw-media)').length"
    assert driver.execute_script(stray) == 0
    assert driver.execute_script("return window.__xss === undefined")
