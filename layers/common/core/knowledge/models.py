"""Knowledge's wire models (authoring.md, "Trying an agent before visitors do"): what a turn would retrieve, with
each passage's score, for ``POST …/knowledge/search`` and the preview's ``retrieval`` event."""

from __future__ import annotations

from pydantic import Field

from core.knowledge.index import Passage
from core.platform.fields import Prompt
from core.platform.models import ApiModel, RequestModel

SEARCH_LIMIT = 20


class PassageSource(ApiModel):
    """Where a passage comes from: an item (``itemId``, ``r2Key``), a post (``postId``), an owner's answer
    (``answerId``) or a site section (none of them); every key present, null where it has none."""

    item_id: str | None
    post_id: str | None
    answer_id: str | None = Field(description="an owner's answer (its question is ``name``)")
    name: str
    r2_key: str | None


class RetrievedPassage(ApiModel):
    text: str
    where: str = Field(description="where it stands in its source: a page, sheet, slide or section; may be empty")
    score: float = Field(description="its BM25 score for the message (higher ranks first; comparable within one "
                                     "answer only)")  # fmt: skip
    source: PassageSource

    @classmethod
    def of(cls, passage: Passage) -> RetrievedPassage:
        source = passage.source
        origin = PassageSource(
            item_id=source.item_id,
            post_id=source.post_id,
            answer_id=source.answer_id,
            name=source.name,
            r2_key=source.r2_key,
        )
        return cls(text=passage.text, where=passage.where, score=round(passage.score, 4), source=origin)


class KnowledgeSearchRequest(RequestModel):
    query: Prompt = Field(description="the message to retrieve for, as a visitor would send it")
    limit: int = Field(6, ge=1, le=SEARCH_LIMIT, description="how many passages, best first")


class KnowledgeSearchResult(ApiModel):
    """The best passages for the query as a chat turn ranks them, best first; ``[]`` for an agent not indexed yet."""

    passages: list[RetrievedPassage]
