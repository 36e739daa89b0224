"""The chat's ``sources`` event (issue 41): each source once, and each title once per place — posts of one series
share a title, and a visitor shown "Opening" three times reads a glitch. The entries keep the contract's fields."""

from __future__ import annotations

from core.chat.models import ChatSource
from core.chat.service import sources_of
from core.knowledge.index import Passage, Source


def passage(where: str, **source: str) -> Passage:
    return Passage(text="…", where=where, source=Source(**source))


def test_posts_of_one_title_are_one_entry_per_place() -> None:
    passages = [
        passage("", name="Opening", post_id="pst_3"),
        passage("", name="Opening", post_id="pst_2"),  # another post of the series, the same title
        passage("page 2", name="Menu", item_id="itm_1", r2_key="projects/prj_1/menu.pdf"),
        passage("", name="Opening", post_id="pst_1"),
        passage("page 3", name="Menu", item_id="itm_2", r2_key="projects/prj_1/menu-2024.pdf"),  # another place
        passage("page 2", name="Menu", item_id="itm_1", r2_key="projects/prj_1/menu.pdf"),  # the same source again
    ]
    sources = sources_of(passages)
    assert [(s["name"], s["where"]) for s in sources] == [("Opening", ""), ("Menu", "page 2"), ("Menu", "page 3")]
    assert sources[0]["postId"] == "pst_3"  # the most relevant stands for the others
    assert all(ChatSource.model_validate(s).model_dump(by_alias=True) == s for s in sources)  # the contract's fields


def test_different_titles_are_all_kept_most_relevant_first() -> None:
    passages = [passage("", name=name, post_id=f"pst_{n}") for n, name in enumerate(["Opening", "Winter", "Sale"])]
    assert [s["name"] for s in sources_of(passages)] == ["Opening", "Winter", "Sale"]
