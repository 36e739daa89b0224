"""Driving the owner's console in Selenium (tests/browser/console): sign in as a person does, find things as a person
does (by text, role and accessible name), and keep what the run saw (screenshots, the accessibility check).

``Console(driver, service)``; the ``console`` fixture (tests/browser/console/conftest.py) gives one signed out:

- ``sign_in(email)``: asks for a link in the browser's sign-in form, reads the mail the runner's outbox got, opens
  its link in the browser, and waits until the console shows the signed-in page (``expect``, "Your workspaces" by
  default);
- ``open(path)`` (``/w/<ws>/keys``), ``url_path()``, ``wait_text(text)``, ``wait_gone(text)``,
  ``wait_role(role, name)`` / ``role(role, name)`` (by WebDriver's computed role and accessible name),
  ``click(role, name)``, ``fill(label, value)``, ``chart_numbers(chart_id)`` (the ``<table data-chart>`` a chart
  was drawn from);
- ``screenshot(name)``: the whole page at desktop (1280) and phone (390) widths, into
  tests/browser/artifacts/console/<name>-desktop.png and -phone.png;
- ``axe(name)``: axe-core (console/node_modules/axe-core) on the page as it is; fails listing every serious or
  critical violation, readably (rule, impact, help, the elements);
- ``api(email, method, path, body)``: the portal API as that person (a JWT from ``tests.support.runner.sign_in``,
  cached), to read the numbers a page should show, or to set a scene up quickly.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

from stack.template import ROOT
from tests.support import log_scan
from tests.support.runner import LocalService, Reply, portal, sign_in

ARTIFACTS = ROOT / "tests" / "browser" / "artifacts" / "console"
AXE = ROOT / "console" / "node_modules" / "axe-core" / "axe.min.js"
WAIT = 20.0  # seconds a page may take to show something: a hang detector (a page answers in well under a second)
WIDTHS = {"desktop": 1280, "phone": 390}
SERIOUS = ("serious", "critical")
# Elements that have a role without saying it (HTML-AAM), to look among; any element with role="…" too.
_ROLE_CSS = {
    "button": "button, input[type=submit], input[type=button], input[type=reset]",
    "link": "a[href]",
    "heading": "h1, h2, h3, h4, h5, h6",
    "textbox": "input:not([type]), input[type=text], input[type=email], input[type=url], input[type=search], "
    "input[type=tel], input[type=password], textarea",
    "spinbutton": "input[type=number]",
    "checkbox": "input[type=checkbox]",
    "radio": "input[type=radio]",
    "combobox": "select",
    "listbox": "select[multiple]",
    "table": "table",
    "row": "tr",
    "alert": "[role=alert]",
    "status": "output",
    "navigation": "nav",
    "main": "main",
    "dialog": "dialog",
    "tab": "[role=tab]",
    "img": "img[alt]:not([alt='']), svg[role=img]",
}
T = TypeVar("T")


@dataclass
class Console:
    driver: Any
    service: LocalService
    _jwts: dict[str, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        """The console's origin, e.g. ``http://127.0.0.1:41234`` (no trailing slash)."""
        return str(self.service.demo["consoleUrl"]).rstrip("/")

    # --- the browser ------------------------------------------------------------------------------------------------
    def reset(self) -> None:
        """Signed out, everywhere: every cookie of the browser (all sites) removed, the page blank."""
        self.driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
        self.driver.get("about:blank")

    def open(self, path: str = "/") -> None:
        """The console at ``path`` (a path of the console, ``/w/ws_…/keys``), as typed in the address bar."""
        assert path.startswith("/"), path
        self.driver.get(self.url + path)

    def url_path(self) -> str:
        """The address bar's path and query (``/w/ws_1/keys?x=1``)."""
        parts = urlsplit(self.driver.current_url)
        return parts.path + (f"?{parts.query}" if parts.query else "")

    def until(self, what: str, check: Callable[[], T | None], timeout: float = WAIT) -> T:
        """``check()`` until it returns something truthy (returned); fails naming ``what`` and the page's text."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                found = check()
            except Exception:  # an element replaced while read (a re-render): look again
                found = None
            if found:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"{what} not seen within {timeout:.0f} s at {self.url_path()}; the page says:\n"
                                     f"{self.text()[:2000]}")  # fmt: skip
            time.sleep(0.05)

    def text(self) -> str:
        """The page's visible text."""
        from selenium.webdriver.common.by import By

        try:
            return str(self.driver.find_element(By.TAG_NAME, "body").text)
        except Exception:  # no body yet
            return ""

    def wait_text(self, text: str, timeout: float = WAIT) -> None:
        """Until the page's visible text contains ``text``."""
        self.until(repr(text), lambda: text in self.text(), timeout)

    def wait_gone(self, text: str, timeout: float = WAIT) -> None:
        """Until the page's visible text no longer contains ``text`` (a "Loading…" or "Saving…")."""
        self.until(f"the end of {text!r}", lambda: text not in self.text(), timeout)

    def roles(self, role: str, name: str | None = None, *, exact: bool = False) -> list[Any]:
        """The displayed elements of ``role`` whose accessible name contains ``name`` (equals it, ``exact``)."""
        from selenium.webdriver.common.by import By

        css = ", ".join(filter(None, [_ROLE_CSS.get(role), f"[role={role}]"]))
        found = []
        for element in self.driver.find_elements(By.CSS_SELECTOR, css):
            if not element.is_displayed() or element.aria_role != role:
                continue
            label = " ".join(str(element.accessible_name or "").split())
            if name is None or (label == name if exact else name in label):
                found.append(element)
        return found

    def wait_role(self, role: str, name: str | None = None, *, exact: bool = False, timeout: float = WAIT) -> Any:
        """The first displayed element of ``role`` named ``name``, once there is one."""
        return self.until(f"a {role} named {name!r}", lambda: (self.roles(role, name, exact=exact) or [None])[0],
                          timeout)  # fmt: skip

    def role(self, role: str, name: str | None = None, *, exact: bool = False) -> Any:
        """Like ``wait_role``: the element, waited for."""
        return self.wait_role(role, name, exact=exact)

    def click(self, role: str, name: str, *, exact: bool = False) -> None:
        """Click the (enabled) element of ``role`` named ``name``, e.g. ``click("button", "Save")``."""
        element = self.until(
            f"an enabled {role} named {name!r}",
            lambda: next((e for e in self.roles(role, name, exact=exact) if e.is_enabled()), None),
        )
        element.click()

    def field(self, label: str, *, exact: bool = False) -> Any:
        """The form control labelled ``label`` (any of textbox, spinbutton, combobox, checkbox, radio)."""
        from selenium.webdriver.common.by import By

        def find() -> Any:
            for element in self.driver.find_elements(By.CSS_SELECTOR, "input, textarea, select"):
                name = " ".join(str(element.accessible_name or "").split())
                if element.is_displayed() and (name == label if exact else label in name):
                    return element
            return None

        return self.until(f"a field labelled {label!r}", find)

    def fill(self, label: str, value: str, *, exact: bool = False) -> None:
        """Type ``value`` into the field labelled ``label``, replacing what it held."""
        from selenium.webdriver.common.keys import Keys

        element = self.field(label, exact=exact)
        element.send_keys(Keys.CONTROL, "a")
        element.send_keys(Keys.DELETE)
        element.send_keys(value)

    def chart_numbers(self, chart: str) -> dict[str, dict[str, str]]:
        """The numbers a chart was drawn from: ``{day: {series label: text}}`` from its ``<table data-chart>``."""
        from selenium.webdriver.common.by import By

        css = f'table[data-chart="{chart}"]'
        table = self.until(f"the table of chart {chart!r}", lambda: self.driver.find_element(By.CSS_SELECTOR, css))
        rows: dict[str, dict[str, str]] = {}
        for row in table.find_elements(By.CSS_SELECTOR, "tbody tr"):
            day = row.find_element(By.CSS_SELECTOR, "th[scope=row]").get_attribute("textContent").strip()
            cells = row.find_elements(By.CSS_SELECTOR, "td[data-series]")
            rows[day] = {c.get_attribute("data-series"): c.get_attribute("textContent").strip() for c in cells}
        return rows

    # --- signing in as a person does ----------------------------------------------------------------------------
    def sign_in(self, email: str, *, expect: str = "Your workspaces", path: str = "/sign-in") -> None:
        """Request a link in the console's sign-in form, open the link the outbox got, wait for ``expect``."""
        before = self._mails()
        self.open(path)
        self.fill("Email address", email)
        self.click("button", "Send me a sign-in link")
        self.wait_text("on its way")
        link = self.until(f"a sign-in mail to {email}", lambda: self._new_link(email, before))
        assert link.startswith(self.url), f"the sign-in mail links to {link}, not to the console {self.url}"
        self.driver.get(link)
        self.wait_text(expect)

    def sign_out(self) -> None:
        self.click("button", "Sign out")
        self.wait_text("Sign in to the console")

    def _mails(self) -> set[Path]:
        outbox = self.service.state_dir / "outbox"
        return set(outbox.glob("*.json")) if outbox.exists() else set()

    def _new_link(self, email: str, before: set[Path]) -> str | None:
        for path in sorted(self._mails() - before):
            mail = json.loads(path.read_text())
            if mail["to"] == email and "/invitations" not in mail["link"]:
                log_scan.register_secret(parse_qs(urlsplit(mail["link"]).query)["token"][0])  # never in a log
                return str(mail["link"])
        return None

    # --- what the run keeps: screenshots, and the accessibility check -------------------------------------------
    def screenshot(self, name: str) -> list[Path]:
        """The whole page at desktop and phone widths: ``artifacts/console/<name>-desktop.png``, ``-phone.png``."""
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        saved = []
        try:
            for kind, width in WIDTHS.items():
                self._viewport(width, 900)
                height = int(self.driver.execute_script("return document.documentElement.scrollHeight"))
                self._viewport(width, min(max(height, 600), 6000))
                path = ARTIFACTS / f"{name}-{kind}.png"
                assert self.driver.save_screenshot(str(path)), f"no screenshot written to {path}"
                saved.append(path)
        finally:
            self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        return saved

    def _viewport(self, width: int, height: int) -> None:
        metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)

    def axe(self, name: str) -> list[dict[str, Any]]:
        """axe-core on the page as shown; fails on any serious or critical violation, each listed. Returns every
        violation (the minor and moderate ones too), and keeps the report in artifacts/console/<name>-axe.json."""
        if not AXE.is_file():
            raise AssertionError(f"{AXE} is missing: run `make console` (axe-core is a devDependency of console/)")
        # WebDriver's scripts run outside the page's Content-Security-Policy, which allows no inline script.
        self.driver.execute_script(AXE.read_text() + "\n;window.__axe = axe;")
        result = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "window.__axe.run(document, {resultTypes: ['violations']})"
            ".then(r => done({violations: r.violations}), e => done({error: String(e)}));"
        )
        assert "error" not in result, f"axe-core failed on {name}: {result['error']}"
        violations: list[dict[str, Any]] = result["violations"]
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / f"{name}-axe.json").write_text(json.dumps(violations, indent=2))
        serious = [v for v in violations if v.get("impact") in SERIOUS]
        assert not serious, f"axe-core: {len(serious)} serious or critical violations on {name}:\n" + readable(serious)
        return violations

    # --- the API, as the same person -----------------------------------------------------------------------------
    def api(self, email: str, method: str, path: str, body: dict | None = None) -> Reply:
        """The portal API as ``email`` (signed in once through the portal, the JWT kept): what a page should show."""
        if email not in self._jwts:
            self._jwts[email] = sign_in(self.service, email)[1]
        return portal(self.service, method, path, self._jwts[email], body)


def readable(violations: list[dict[str, Any]]) -> str:
    """axe-core's violations as lines a person reads: rule, impact, help, then each element and why it fails."""
    lines = []
    for violation in violations:
        lines.append(f"- {violation['id']} ({violation.get('impact')}): {violation['help']} [{violation['helpUrl']}]")
        for node in violation.get("nodes", [])[:10]:
            target = " ".join(str(t) for t in node.get("target", []))
            why = " ".join(str(node.get("failureSummary", "")).split())
            lines.append(f"    {target}: {why[:300]}")
    return "\n".join(lines)
