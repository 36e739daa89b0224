"""The brand widget's chat in headless Chromium: the reply grows in the DOM as the NDJSON arrives,
and two widgets on one page work side by side.
"""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

import pytest

from tests.support.brand_widget import OBSERVE_REPLY, PROMPT, Page, chat, loaded, network, open_page, wait_for
from tests.support.runner import LocalService

pytestmark = pytest.mark.browser


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


def test_a_tag_in_the_head_renders_at_the_top_of_the_body(driver: Any, page: Page) -> None:
    """A file holding only the tag is parsed into <head>: after the tag, the widget would load and never show."""
    open_page(driver, page)
    loaded(driver)
    driver.execute_script("""
        const first = document.querySelector('script[data-key]');
        const tag = document.createElement('script');
        for (const name of ['brainUrl', 'key', 'agent']) tag.dataset[name] = first.dataset[name];
        tag.src = first.src; tag.id = 'in-head'; document.head.append(tag);
    """)
    wait_for(driver, "return document.querySelectorAll('.bw').length === 2")
    placed = driver.execute_script("""
        const widget = document.body.firstElementChild, box = widget.getBoundingClientRect();
        return [widget.matches('.bw'), document.head.querySelectorAll('.bw').length, box.width > 0 && box.height > 0];
    """)
    assert placed == [True, 0, True]
    wait_for(driver, "return document.body.firstElementChild.querySelectorAll('.bw-grid .bw-tile').length > 0")
