"""The brand widget's limits in headless Chromium: the stop button aborts a stream, and 429, 402 and
a stream's error line are shown to the visitor.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.browser.conftest import Pages, free_port
from tests.support.brand_widget import (
    OBSERVE_REPLY,
    PROMPT,
    chat,
    chat_status,
    loaded,
    network,
    open_page,
    raw_answers,
    wait_for,
)
from tests.support.runner import LocalService

pytestmark = pytest.mark.browser


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
