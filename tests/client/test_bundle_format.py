"""Reading a bundle folder (``workspace_client.bundle.load_bundle``): the service's normal form, and every refusal
naming the file, the entry and the field. Pure: files in tmp, no runner."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from workspace_client.bundle import BundleError, load_bundle
from workspace_client.bundle.files import content_type

from tests.support.bundles import FILES, POSTS, write_bundle


@pytest.fixture
def bundle_dir(tmp_path: Path) -> Path:
    return write_bundle(tmp_path / "bundle")


def test_entries_are_read_in_the_services_normal_form(bundle_dir: Path) -> None:
    bundle = load_bundle(bundle_dir)
    assert bundle.agent.slug == "test-barista" and bundle.agent.brand is None
    image, carousel, video, text, draft = bundle.posts
    assert [post.created_at for post in bundle.posts] == [
        "2026-01-02T03:04:05.000Z",
        "2026-01-03T09:00:00.000Z",  # +01:00 → UTC
        "2026-01-04T12:30:00.500Z",
        "2026-01-05T08:00:00.000Z",
        "2026-01-06T08:00:00.000Z",
    ]
    assert carousel.channels == ["instagram"]  # repeats dropped, as the service does
    assert [page.key for page in carousel.pages] == ["media/a.jpg", "media/b.jpg", "media/c.png"]  # by order
    assert text.title == "Opening hours"  # stripped, as the service strips
    assert (image.status, draft.status, video.poster, image.poster, image.pages) == (
        "published", "draft", "media/clip-poster.jpg", "", [],
    )  # fmt: skip
    assert (text.hashtags, text.sub, text.width) == ([], None, None)
    faq = bundle.items[2]
    assert (faq.folder, faq.order, faq.origin, faq.active) == ("", 0, "upload", True)
    assert bundle.wrap is not None and bundle.wrap["theme"] == {"accent": "#336699", "logo": None}
    assert bundle.site is not None and bundle.site["nav"] == ["home"]
    assert bundle.suggestions == ["What is new?", "When are you open?"]
    assert list(bundle.files) == sorted(FILES)
    assert bundle.files["notes/faq.md"].content_type == "text/markdown; charset=utf-8"
    assert bundle.files["media/clip.mp4"].size == len(FILES["media/clip.mp4"])


def test_hidden_files_and_the_tools_folder_are_not_files_of_the_agent(bundle_dir: Path) -> None:
    (bundle_dir / ".DS_Store").write_bytes(b"\0")
    (bundle_dir / "media" / ".a.jpg.swp").write_bytes(b"\0")
    (bundle_dir / ".workspace-client").mkdir()
    (bundle_dir / ".workspace-client" / "state.bin").write_bytes(b"\0")
    assert list(load_bundle(bundle_dir).files) == sorted(FILES)


def test_absent_documents_are_none_and_absent_lists_empty(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "b", wrap_json=None, site_json=None, suggestions_json=None, posts_json=None,
                        items_json=None)  # fmt: skip
    bundle = load_bundle(root)
    assert (bundle.wrap, bundle.site, bundle.suggestions, bundle.posts, bundle.items) == (None, None, None, [], [])


def test_content_types_come_from_the_extension_case_insensitively() -> None:
    assert content_type("a/B.JPEG") == "image/jpeg"
    assert content_type("v.mov") == "video/quicktime"
    assert content_type("links/booking.uri") == "text/uri-list; charset=utf-8"
    assert content_type("page.html") is None and content_type("logo.svg") is None and content_type("README") is None


def post(**changes: Any) -> list[dict[str, Any]]:
    """The synthetic posts with the first one changed (a value None: the field removed)."""
    first = {name: value for name, value in (POSTS[0] | changes).items() if value is not None}
    return [first, *POSTS[1:]]


REFUSALS: list[tuple[dict[str, Any], str]] = [
    ({"posts_json": post(titel="typo")}, "posts.json[0]: titel: unknown field"),
    ({"posts_json": post(createdAt=None)}, "posts.json[0]: createdAt: Field required"),
    ({"posts_json": post(createdAt="2026-01-02 03:04:05")},
     "posts.json[0]: createdAt: Value error, must be an RFC 3339"),
    ({"posts_json": post(createdAt="2026-01-03T09:00:00Z")},  # the second post's, once in UTC
     "posts.json[1]: createdAt: 2026-01-03T09:00:00.000Z is also entry 0's"),
    ({"posts_json": post(width="1080")}, "posts.json[0]: width: Input should be a valid integer"),
    ({"posts_json": post(width=True)}, "posts.json[0]: width: Input should be a valid integer"),
    ({"posts_json": post(kind="gif")}, "posts.json[0]: kind: Input should be 'image'"),
    ({"posts_json": post(mediaType="image")}, "posts.json[0]: mediaType: unknown field"),
    ({"posts_json": post(pages=[{"key": "media/a.jpg", "size": 1}])}, "posts.json[0]: pages[0].size: unknown field"),
    ({"posts_json": post(poster="media/missing.jpg")},
     "posts.json[0] (createdAt 2026-01-02T03:04:05.000Z): poster: media/missing.jpg is not a file of the bundle"),
    ({"posts_json": post(pages=[{"key": "media/a.jpg"}, {"key": "posts.json"}])},
     "posts.json[0] (createdAt 2026-01-02T03:04:05.000Z): pages[1].key: posts.json is not a file of the bundle"),
    ({"posts_json": {"createdAt": "2026-01-02T03:04:05Z"}}, "posts.json: must be a JSON array of entries"),
    ({"items_json": [{"name": "A", "kind": "image", "file": "media/a.jpg"},
                     {"name": "B", "kind": "image", "file": "media/a.jpg"}]},
     "items.json[1]: file: media/a.jpg is also entry 0's"),
    ({"items_json": [{"name": "A", "kind": "image", "file": "media/nope.jpg"}]},
     "items.json[0] (A): file: media/nope.jpg is not a file of the bundle"),
    ({"items_json": [{"name": "A", "kind": "image", "file": "media/a.jpg", "active": "yes"}]},
     "items.json[0]: active: Input should be a valid boolean"),
    ({"agent_json": {"slug": "Test Barista", "name": "x"}}, "agent.json: slug: String should match pattern"),
    ({"agent_json": {"slug": "a", "name": "x", "workflow": "wf"}}, "agent.json: workflow: unknown field"),
    ({"agent_json": {"slug": "a", "name": "x", "brand": {"slug": "studio"}}},
     "agent.json: brand: name: Field required"),
    ({"agent_json": {"slug": "a", "name": "x", "brand": {"slug": "s", "name": "S", "palette": ["red"]}}},
     "agent.json: brand: palette[0]: String should match pattern"),
    ({"agent_json": {"slug": "a", "name": "x", "brand": {"slug": "s", "name": "S", "logo": "a.png"}}},
     "agent.json: brand: logo: unknown field"),
    ({"agent_json": {"slug": "a", "name": "x", "behaviour": {"temperature": "0.5"}}},
     "agent.json: behaviour: temperature: Input should be a valid number"),
    ({"agent_json": {"slug": "a", "name": "x", "behaviour": {"temperature": 1.5}}},
     "agent.json: behaviour: temperature: Input should be less than or equal to 1"),
    ({"agent_json": {"slug": "a", "name": "x", "behaviour": {"maxReplyTokens": 63}}},
     "agent.json: behaviour: maxReplyTokens: Input should be greater than or equal to 64"),
    ({"agent_json": {"slug": "a", "name": "x", "behaviour": {"max_reply_tokens": 100}}},
     "agent.json: behaviour: max_reply_tokens: unknown field"),
    ({"agent_json": {"slug": "a", "name": "x", "behaviour": {"knowledgeOnly": "yes"}}},
     "agent.json: behaviour: knowledgeOnly: Input should be a valid boolean"),
    ({"agent_json": {"slug": "a", "name": "x", "behaviour": {"temperature": None}}},
     "agent.json: behaviour: temperature: Value error, must be a value (leave the field out"),
    ({"agent_json": {"slug": "a", "name": "x", "behaviour": {"instructions": "x" * 8001}}},
     "agent.json: behaviour: instructions: String should have at most 8000 characters"),
    ({"agent_json": {"slug": "a", "name": "x", "behaviour": {"fallback": "Sorry\u0007"}}},
     "agent.json: behaviour: fallback: Value error, a control character (U+0007) at 5"),
    ({"agent_json": {"slug": "a", "name": "x", "behaviour": {"voice": "warm"}}},
     "agent.json: behaviour: voice: unknown field"),
    ({"wrap_json": ["not", "an", "object"]}, "wrap.json: must be a JSON object"),
    ({"site_json": {"nav": []}}, "site.json: pages: must be an array"),
    ({"suggestions_json": ["x" * 70_000]}, "suggestions.json: at most 65536 bytes of JSON"),
    ({"files": {"media/logo.svg": b"<svg/>"}}, "media/logo.svg: the service takes no file of this extension"),
]  # fmt: skip


@pytest.mark.parametrize(("documents", "message"), REFUSALS, ids=[message[:48] for _, message in REFUSALS])
def test_refusals_name_the_file_the_entry_and_the_field(
    tmp_path: Path, documents: dict[str, Any], message: str
) -> None:
    root = write_bundle(tmp_path / "b", **documents)
    with pytest.raises(BundleError) as refused:
        load_bundle(root)
    assert str(refused.value).startswith(message), str(refused.value)


def test_a_file_that_is_not_json_is_refused_with_its_line(bundle_dir: Path) -> None:
    (bundle_dir / "items.json").write_text('[\n  {"name": "A",}\n]')
    with pytest.raises(BundleError, match=r"^items\.json: not JSON: .* \(line 2, column 15\)"):
        load_bundle(bundle_dir)
    (bundle_dir / "items.json").write_bytes(b'["\xff"]')
    with pytest.raises(BundleError, match=r"^items\.json: not UTF-8"):
        load_bundle(bundle_dir)


def test_a_folder_without_agent_json_is_no_bundle(tmp_path: Path) -> None:
    with pytest.raises(BundleError, match="not a bundle"):
        load_bundle(tmp_path)


def test_a_post_may_name_the_same_file_in_several_fields(bundle_dir: Path) -> None:
    posts = json.loads((bundle_dir / "posts.json").read_text())
    assert posts[2]["key"] == posts[2]["playable"]  # the video post names media/clip.mp4 twice
    assert load_bundle(bundle_dir).posts[2].media() == {"key": "media/clip.mp4", "poster": "media/clip-poster.jpg",
                                                        "playable": "media/clip.mp4"}  # fmt: skip


def secret(tmp_path: Path, name: str, data: bytes = b"not the bundle's") -> Path:
    """A file outside the bundle (``tmp_path / "bundle"``), as anything else on the machine."""
    path = tmp_path / "elsewhere" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


# (a link in the bundle, the file or folder outside it that it points to, through a link inside or directly)
LINKS_OUT = [
    ("notes.txt", "secret.txt", None),
    ("wrap.json", "wrap.json", None),
    ("agent.json", "agent.json", None),
    ("posts.json", "posts.json", None),
    ("media/shared", ".", None),  # a folder
    ("notes/chain.md", "secret.txt", "notes/hop.md"),  # a chain: a link to a link that leaves
]


@pytest.mark.parametrize(("link", "target", "via"), LINKS_OUT, ids=[link for link, _, _ in LINKS_OUT])
def test_a_link_out_of_the_bundle_is_refused_by_its_name(
    bundle_dir: Path, link: str, target: str, via: str | None
) -> None:
    """Each points to a valid bundle file elsewhere, which would otherwise be published (uploaded, or put)."""
    for name in ("agent.json", "posts.json"):
        secret(bundle_dir.parent, name, (bundle_dir / name).read_bytes())
    secret(bundle_dir.parent, "wrap.json", json.dumps({"layout": "leaked"}).encode())
    outside = secret(bundle_dir.parent, "secret.txt").parent / target
    if via:
        (bundle_dir / via).symlink_to(outside)
        outside = bundle_dir / via
    (bundle_dir / link).unlink(missing_ok=True)
    (bundle_dir / link).symlink_to(outside)
    with pytest.raises(BundleError, match=rf"^{re.escape(link)}: a link out of the bundle"):
        load_bundle(bundle_dir)


def test_links_that_stay_inside_the_bundle_are_followed(bundle_dir: Path, tmp_path: Path) -> None:
    (bundle_dir / "media" / "alias.jpg").symlink_to("a.jpg")
    (bundle_dir / "gallery").symlink_to(bundle_dir / "media")
    (bundle_dir / ".private").symlink_to(secret(tmp_path, "hidden.txt"))  # hidden: never read, so not refused
    (tmp_path / "linked-bundle").symlink_to(bundle_dir)  # the bundle's folder itself, as the user names it
    files = load_bundle(tmp_path / "linked-bundle").files
    linked = [*FILES, "media/alias.jpg"]
    assert list(files) == sorted([*linked, *(p.replace("media/", "gallery/") for p in linked if p[:6] == "media/")])
    assert files["media/alias.jpg"].md5 == files["gallery/a.jpg"].md5 == files["media/a.jpg"].md5
    (bundle_dir / "gallery" / "loop").symlink_to(bundle_dir)
    with pytest.raises(BundleError, match=r"^gallery/loop: a link to a folder it is in"):
        load_bundle(bundle_dir)


def test_a_name_with_dots_cannot_reach_out_of_the_bundle(bundle_dir: Path, tmp_path: Path) -> None:
    secret(tmp_path, "x.jpg")
    with pytest.raises(BundleError, match=r"key: \.\./elsewhere/x\.jpg is not a file of the bundle"):
        load_bundle(write_bundle(bundle_dir, posts_json=post(key="../elsewhere/x.jpg")))


def test_a_misnamed_document_is_refused_naming_it_not_uploaded(tmp_path: Path) -> None:
    """Issue 28: a ``post.json`` beside agent.json was uploaded as a file, and the bundle, having no posts.json, had
    publish unpublish every post there was."""
    root = write_bundle(tmp_path / "b", posts_json=None)
    (root / "post.json").write_text(json.dumps(POSTS))
    with pytest.raises(BundleError) as refused:
        load_bundle(root)
    assert str(refused.value).startswith("post.json: not a document of a bundle (agent.json, ")
    assert "did you mean posts.json?" in str(refused.value)
    (root / "post.json").rename(root / "media" / "post.json")  # in a folder it is a file of the agent, as any
    assert "media/post.json" in load_bundle(root).files
