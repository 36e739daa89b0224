"""The owner's console: what its first page weighs (gzip) and how long it takes to load on the runner.

Sizes, from console/dist (``make console``): the first page is index.html's module script and stylesheets, its
modulepreload links and every module they import statically, transitively (Vite's chunks); the pages loaded lazily
(``import("./Keys-….js")``) are not. Each file gzipped at level 6 (what a CDN's compression gives, about), summed;
and the totals of every script and stylesheet in the build. The budget (issue 41): at most 250 KB of gzip JavaScript
for the first page, asserted by tests/unit/bench/test_console_budget.py (a size, not a time).

Load time, in headless Chromium (the browser tests' own, Debian's) on a runner of its own, HTTP cache off: the
console's sign-in page (a first visit: no session) from navigation start to its first contentful paint, and to the
load event; the brand demo page's load event, measured in the same run, as the baseline. Only the ratio says anything
across machines; it is reported, never asserted.

    .venv/bin/python bench/console.py [--loads 5] [--json PATH]
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import statistics
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]  # a script, not a test: make ``local`` importable when run by path

from bench.benchkit import command, finish, parser, table  # noqa: E402

DIST = ROOT / "console" / "dist"
BUDGET_JS_GZIP = 250 * 1024  # bytes of gzip JavaScript the first page may load (issue 41)
# A module's static imports and re-exports (`import{a as b}from"./x.js"`, `import"./x.js"`, `export*from"./x.js"`);
# never `import("./x.js")`, a lazily loaded page: after `import`, a quote or `from` must come, never a parenthesis.
_STATIC_IMPORT = re.compile(rb"""\b(?:import|export)\s*(?:[\w$*{}\s,]*?\bfrom\s*)?["']([^"'()\s]+\.m?js)["']""")
_SCRIPT = re.compile(r"""<script\b[^>]*\btype=["']module["'][^>]*\bsrc=["']([^"']+)["']""")
_LINK = re.compile(r"""<link\b([^>]*)>""")
_HREF = re.compile(r"""\bhref=["']([^"']+)["']""")
_REL = re.compile(r"""\brel=["']([^"']+)["']""")


def gzip_size(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=6, mtime=0))


@dataclass(frozen=True)
class FirstPage:
    scripts: list[Path]  # index.html's module scripts and modulepreloads, and what they import statically
    styles: list[Path]  # index.html's stylesheets

    def js_gzip(self) -> int:
        return sum(gzip_size(path.read_bytes()) for path in self.scripts)

    def css_gzip(self) -> int:
        return sum(gzip_size(path.read_bytes()) for path in self.styles)


def first_page(dist: Path = DIST) -> FirstPage:
    """What a browser fetches to show the console's first page, from the build's index.html."""
    index = (dist / "index.html").read_text()
    entries = [_file(dist, src) for src in _SCRIPT.findall(index)]
    styles = []
    for attributes in _LINK.findall(index):
        href, rel = _HREF.search(attributes), _REL.search(attributes)
        if href and rel and rel[1] == "modulepreload":
            entries.append(_file(dist, href[1]))
        elif href and rel and rel[1] == "stylesheet":
            styles.append(_file(dist, href[1]))
    assert entries, f"{dist / 'index.html'} names no module script"
    scripts: list[Path] = []
    pending = list(entries)
    while pending:  # the static import graph, each module once
        module = pending.pop()
        if module in scripts:
            continue
        scripts.append(module)
        pending += [(module.parent / name.decode()).resolve() for name in _STATIC_IMPORT.findall(module.read_bytes())]
    return FirstPage(sorted(scripts), styles)


def _file(dist: Path, url: str) -> Path:
    path = (dist / url.split("?", 1)[0].lstrip("/")).resolve()
    assert path.is_file(), f"index.html names {url}, which is not in {dist}"
    return path


def totals(dist: Path = DIST) -> dict[str, tuple[int, int, int]]:
    """``{"js"|"css": (files, bytes, gzip bytes)}`` over every file of the build."""
    found: dict[str, tuple[int, int, int]] = {}
    for kind in ("js", "css"):
        files = sorted(dist.rglob(f"*.{kind}"))
        found[kind] = (len(files), sum(p.stat().st_size for p in files), sum(gzip_size(p.read_bytes()) for p in files))
    return found


# --- the load time in Chromium ----------------------------------------------------------------------------------
_NAVIGATION = "const n = performance.getEntriesByType('navigation')[0]; return n ? n.toJSON() : null;"


@contextmanager
def _chromium() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    from tests.browser.conftest import CHROMEDRIVER, CHROMIUM, CHROMIUM_FLAGS

    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must never fetch a driver or a browser
    profile = tempfile.mkdtemp(prefix="bench-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in [*CHROMIUM_FLAGS, f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    browser = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    try:
        browser.execute_cdp_cmd("Network.enable", {})
        browser.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})  # every load a first visit
        yield browser
    finally:
        browser.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _load(browser: Any, url: str, shown: str | None) -> tuple[float, float | None]:
    """Open ``url`` afresh: (ms to the load event, ms to the first contentful paint), waiting for ``shown`` (an h1's
    text) to be on screen first: the console paints nothing before its script has rendered the page."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get("about:blank")
    browser.execute_cdp_cmd("Network.clearBrowserCookies", {})
    browser.get(url)
    painted = None
    if shown:
        WebDriverWait(browser, 30, poll_frequency=0.005).until(
            lambda b: any(shown in h.text for h in b.find_elements(By.TAG_NAME, "h1"))
        )
        paint = "return performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null"
        painted = WebDriverWait(browser, 30).until(lambda b: b.execute_script(paint))
    WebDriverWait(browser, 30).until(lambda b: (b.execute_script(_NAVIGATION) or {}).get("loadEventEnd", 0) > 0)
    timing = browser.execute_script(_NAVIGATION)
    return float(timing["loadEventEnd"] - timing["startTime"]), painted


def load_times(loads: int) -> dict[str, list[float]]:
    """``loads`` first loads each of the console's sign-in page and the brand demo page, alternated, on one runner."""
    from stack.process import RunnerProcess

    state = Path(tempfile.mkdtemp(prefix="bench-console-"))
    runner = RunnerProcess(state, env={"LOCAL_DEMO_TEMPLATE": "1"})
    try:
        demo = runner.start()
        console, page = demo["consoleUrl"] + "/sign-in", demo["pageUrl"]
        found: dict[str, list[float]] = {"console load": [], "console first paint": [], "brand page load": []}
        with _chromium() as browser:
            _load(browser, console, "Sign in")  # the servers' first answers (a container starting), unmeasured
            _load(browser, page, None)
            for _ in range(loads):
                loaded, painted = _load(browser, console, "Sign in")
                found["console load"].append(loaded)
                found["console first paint"].append(painted or 0.0)
                found["brand page load"].append(_load(browser, page, None)[0])
        return found
    finally:
        runner.stop()
        shutil.rmtree(state, ignore_errors=True)


def main(argv: list[str] | None = None) -> dict[str, str]:
    cli = parser(__doc__)
    cli.add_argument("--loads", type=int, default=5, help="first loads of each page")
    args = cli.parse_args(argv)
    if not (DIST / "index.html").is_file():
        raise SystemExit(f"{DIST}/index.html is missing: run `make console` first")
    first, every = first_page(), totals()
    js, css = first.js_gzip(), first.css_gzip()
    rows = [
        ["first page: JavaScript", len(first.scripts), sum(p.stat().st_size for p in first.scripts) / 1024, js / 1024],
        ["first page: CSS", len(first.styles), sum(p.stat().st_size for p in first.styles) / 1024, css / 1024],
        ["whole build: JavaScript", every["js"][0], every["js"][1] / 1024, every["js"][2] / 1024],
        ["whole build: CSS", every["css"][0], every["css"][1] / 1024, every["css"][2] / 1024],
    ]
    markdown = (
        f"console/dist, gzip level 6, KB. Budget: at most {BUDGET_JS_GZIP // 1024} KB of gzip JavaScript for the "
        f"first page ({js / BUDGET_JS_GZIP:.0%} of it used; tests/unit/bench/test_console_budget.py asserts it).\n\n"
        + table(["what", "files", "KB", "KB gzip"], rows)
        + "\n\nFirst page's scripts: "
        + ", ".join(f"`{p.name}`" for p in first.scripts)
    )
    from tests.browser.conftest import missing_browser

    why_not = missing_browser()
    if why_not:
        markdown += f"\n\nLoad time: not measured ({why_not})."
    else:
        times = load_times(args.loads)
        base = statistics.median(times["brand page load"])
        load_rows = [[name, statistics.median(v), min(v), max(v), f"{statistics.median(v) / base:.2f}x"]
                     for name, v in times.items()]  # fmt: skip
        markdown += (
            f"\n\nFirst loads on the runner in headless Chromium, HTTP cache off, ms over {args.loads} loads each "
            "(alternated); baseline: the brand demo page's load event in the same run. The console's: its sign-in "
            "page from navigation start to the load event, and to the first contentful paint (its form, drawn by "
            "the script).\n\n" + table(["page", "median", "min", "max", "x baseline"], load_rows)
        )
    return finish(args, "The console's weight and first load", command("console.py", argv or []), markdown)


if __name__ == "__main__":
    main(sys.argv[1:])
