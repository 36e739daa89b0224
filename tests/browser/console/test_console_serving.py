"""How the console is served, and why its session holds: one origin for the pages and the portal API.

Deployed, CloudFront serves the console and routes ``/api/*`` to the portal API; ``make serve`` does the same with
local/console.py. The sign-in's cookie (HttpOnly, SameSite=Lax) is then first-party to the console, under the
browser's default cookie rules. The control: a page on another site calling the portal API directly, with CORS
letting it read the answers, holds no session, because the browser does not send a SameSite=Lax cookie cross-site.
"""

from __future__ import annotations

from tests.support.console import Console

OWNER = "console-serving@example.com"


def test_a_person_signs_in_through_the_mail_link_and_the_session_holds(console: Console) -> None:
    console.sign_in(OWNER)
    console.wait_role("heading", "Your workspaces")
    console.screenshot("home")
    console.axe("home")
    console.driver.refresh()  # the JWT was in memory only: a reload mints another from the cookie
    console.wait_text("Your workspaces")
    assert console.url_path() == "/"
    console.sign_out()
    console.open("/")
    console.wait_text("Sign in to the console")
    assert console.url_path().startswith("/sign-in")
