"""The console's posts tab (pages/posts/Posts.tsx): one page of posts and "Load more" for the next (the API's
nextCursor), the status filter showing what the API lists for that status, publish and unpublish reflected in the
API, a simple post written in the page, and a member seeing the posts with no write control."""

from __future__ import annotations

from typing import Any

from selenium.webdriver.common.by import By

from tests.browser.console.test_agents import join_as_member, upload_note
from tests.support.console import Console

OWNER = "agents-owner@example.com"
MEMBER = "agents-member@example.com"
PAGE = 20  # the page's own page size (Posts.tsx)


def posts_of(console: Console, workspace: str, agent: str, status: str | None = None) -> list[dict[str, Any]]:
    """Every post the API lists (all its pages), newest first."""
    found: list[dict[str, Any]] = []
    cursor = None
    while True:
        query = "&".join(f"{k}={v}" for k, v in {"limit": 200, "status": status, "cursor": cursor}.items() if v)
        page = console.api(OWNER, "GET", f"/api/workspaces/{workspace}/agents/{agent}/posts?{query}").json()
        found += page["posts"]
        cursor = page["nextCursor"]
        if not cursor:
            return found


def shown(console: Console) -> list[str]:
    """The ids of the posts the table shows, in its order."""
    return [r.get_attribute("data-post") for r in console.driver.find_elements(By.CSS_SELECTOR, "tr[data-post]")]


def row(console: Console, post_id: str) -> Any:
    return console.driver.find_element(By.CSS_SELECTOR, f'tr[data-post="{post_id}"]')


def test_posts_filtered_paged_published_and_unpublished(console: Console) -> None:
    console.sign_in(OWNER)
    created = console.api(OWNER, "POST", "/api/workspaces", {"name": "Posts studio"})
    assert created.status == 201, created.body
    workspace = created.json()["workspace"]["id"]
    agent = console.api(OWNER, "POST", f"/api/workspaces/{workspace}/agents", {"name": "Poster"}).json()["agent"]["id"]
    base = f"/w/{workspace}/agents/{agent}/posts"

    console.open(base)
    console.wait_text("This agent has no post yet.")
    console.wait_text("Upload a file under Knowledge first")
    console.screenshot("posts-empty")
    console.axe("posts-empty")

    note = upload_note(console, OWNER, workspace, agent, name="Poster notes", text="Weekly notes about the studio.")
    key = note["r2Key"].removeprefix(f"projects/{agent}/")
    for n in range(PAGE + 3):  # one page and three more; every third one published
        body = {"kind": "text", "key": key, "title": f"Note {n:02d}", "publish": n % 3 == 0,
                "createdAt": f"2024-01-{n + 1:02d}T09:00:00.000Z"}  # fmt: skip
        assert console.api(OWNER, "POST", f"/api/workspaces/{workspace}/agents/{agent}/posts", body).status == 201

    paged_and_filtered(console, workspace, agent, base)
    written_in_the_page(console, workspace, agent, key)

    # A member reads the posts, with no publish, unpublish, delete or new-post control.
    join_as_member(console, workspace)
    console.reset()
    console.sign_in(MEMBER)
    console.open(base)
    console.until("the first page", lambda: len(shown(console)) == PAGE)
    assert not console.roles("button", "Publish") and not console.roles("button", "Unpublish")
    assert not console.roles("button", "Delete") and not console.roles("heading", "New post")
    assert console.roles("button", "Load more")
    console.axe("posts-member")


def paged_and_filtered(console: Console, workspace: str, agent: str, base: str) -> None:
    """One page, then the next with "Load more" (the API's order, nothing twice); the filter shows what the API
    lists for that status; unpublish and publish again, each reflected in the API and in the filtered list."""
    every = [p["id"] for p in posts_of(console, workspace, agent)]
    console.open(base)
    console.until("the first page", lambda: len(shown(console)) == PAGE)
    assert shown(console) == every[:PAGE]
    console.screenshot("posts")
    console.axe("posts")
    console.click("button", "Load more")
    console.until("the second page", lambda: len(shown(console)) == len(every))
    assert shown(console) == every
    assert not console.roles("button", "Load more")

    # The filter shows what the API lists for that status.
    console.driver.find_element(By.XPATH, "//label[contains(., 'Show')]/select/option[@value='published']").click()
    published = [p["id"] for p in posts_of(console, workspace, agent, "published")]
    console.until("the published posts", lambda: shown(console) == published)
    assert {row(console, p).find_element(By.CSS_SELECTOR, "[data-testid=post-status]").text for p in published} == {
        "Published"}  # fmt: skip

    # Unpublish one: the API says draft, and the filtered list no longer shows it.
    victim = published[0]
    title = next(p["title"] for p in posts_of(console, workspace, agent) if p["id"] == victim)
    console.click("button", f"Unpublish {title}")
    console.wait_text(f"Unpublished: {title}.")
    assert victim not in shown(console)
    assert next(p for p in posts_of(console, workspace, agent) if p["id"] == victim)["status"] == "draft"

    # Among the drafts, publish it again.
    console.driver.find_element(By.XPATH, "//label[contains(., 'Show')]/select/option[@value='draft']").click()
    drafts = [p["id"] for p in posts_of(console, workspace, agent, "draft")]
    console.until("the drafts", lambda: shown(console) == drafts[:PAGE])
    console.click("button", f"Publish {title}")
    console.wait_text(f"Published: {title}.")
    assert victim not in shown(console)
    assert next(p for p in posts_of(console, workspace, agent) if p["id"] == victim)["status"] == "published"
    console.axe("posts-drafts")


def written_in_the_page(console: Console, workspace: str, agent: str, key: str) -> None:
    """A simple post written in the page, published at once: the API has it as written."""
    console.fill("Title", "Summer timetable")
    console.fill("Caption", "New classes from June.")
    console.fill("Hashtags", "#summer, yoga")
    console.field("Publish now").click()
    console.click("button", "Publish post")
    console.wait_text("Post published.")
    made = next(p for p in posts_of(console, workspace, agent) if p["title"] == "Summer timetable")
    assert (made["status"], made["kind"], made["key"], made["caption"], made["hashtags"]) == (
        "published", "text", key, "New classes from June.", ["summer", "yoga"])  # fmt: skip
