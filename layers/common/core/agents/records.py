"""The agents' storage records: the items its stores read and write (docs/data-model.md), in the API's camelCase."""

from __future__ import annotations

from core.platform.records import Record


class KnowledgePointer(Record):
    """The agent's current knowledge index: the worker writes a new object, then moves this pointer in one
    conditional write, so a reader sees the old index or the new one, never half of one (core.knowledge)."""

    version: int
    key: str  # the index object's key in the content bucket (…/knowledge/<agent>/index-<n>.<random>.json.gz)
    fingerprint: str  # what it was built from: an unchanged fingerprint writes nothing
    passages: int = 0


class BehaviourRecord(Record):
    """How the agent answers (authoring.md, "How an agent answers"): the owner's words and the model's settings.

    Stored whole on the agent item with every field set, so a reader needs no defaults of its own; the defaults
    live here, and a PATCH's ``null`` puts a field back to its default."""

    instructions: str = ""
    model: str | None = None  # a catalogue id (core.platform.model_catalogue); None: the deployment's default
    temperature: float = 0.3
    max_reply_tokens: int = 512
    knowledge_only: bool = True
    fallback: str = ""


DEFAULT_BEHAVIOUR = BehaviourRecord()


class AgentRecord(Record):
    id: str
    workspace_id: str
    slug: str
    name: str
    brand_id: str
    active_workflow_id: str
    # Published documents as JSON text, exactly as the editor stored them. They are
    # parsed defensively on read: a bad document must never fail the read plane.
    wrap_json: str | None = None
    site_json: str | None = None
    post_count: int = 0  # drafts included; moved by each post's create and delete transaction
    item_count: int = 0  # inactive included
    knowledge: KnowledgePointer | None = None  # None until the worker first indexes the agent
    behaviour: BehaviourRecord = DEFAULT_BEHAVIOUR  # absent on agents written before it: the defaults
    version: int = 0
    created_at: str
    updated_at: str
