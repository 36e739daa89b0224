"""Driving the brand widget in a browser page (tests/browser): JS polling, the DevTools network log, chat.

The tests read what the browser really did (the performance log holds every request and answer, those
CORS kept from the page included) and what a visitor sees (the widget's DOM).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

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


@dataclass(frozen=True)
class Page:
    """A page server's address: the URL the browser opens, and its origin (what a key allows)."""

    url: str
    origin: str


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
