"""The brand widget's media in headless Chromium: signed media URLs load images, and a video plays
and seeks (Range) without the key in any URL.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import ARTIFACTS
from tests.support.brand_widget import Page, loaded, network, open_page, responses, wait_for

pytestmark = pytest.mark.browser


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
