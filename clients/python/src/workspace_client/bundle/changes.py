"""What a publish does, one change at a time, and the plan that lists them in the order they are carried out.

Each change prints as one line (``create post 2026-01-02T03:04:05.000Z``, ``upload media/a.jpg (1.2 MB)``) and
says how many API writes it takes. Creates carry the ``Idempotency-Key`` the plan derived from the bundle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pydantic.alias_generators import to_camel

from .._operation import CLEAR
from .files import BundleFile
from .format import AgentSpec, AnswerSpec, BrandSpec, Bundle, ItemSpec, PostSpec

DocumentKind = Literal["wrap", "site", "suggestions"]
# An agent's brand id before its brand exists: the id of the brand the plan's ``CreateBrand`` makes.
NEW_BRAND = "(the brand this plan creates)"


def human_size(size: int) -> str:
    """Decimal units, one decimal: ``1.2 MB``."""
    value, unit = float(size), "B"
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if value < 1000 or unit == "TB":
            break
        value /= 1000
    return f"{size} B" if unit == "B" else f"{value:.1f} {unit}"


def _names(fields: dict[str, Any], *, none_clears: bool = False) -> str:
    cleared = " (cleared)" if none_clears else ""
    return ", ".join(to_camel(name) + (cleared if value is None else "") for name, value in fields.items())


@dataclass(frozen=True)
class Change:
    writes: ClassVar[int] = 1  # API writes it takes (an upload's signing is not one: it changes nothing)


@dataclass(frozen=True)
class CreateBrand(Change):
    spec: BrandSpec
    key: str

    def __str__(self) -> str:
        return f"create brand {self.spec.slug} ({self.spec.name})"


@dataclass(frozen=True)
class UpdateBrand(Change):
    brand_id: str
    slug: str
    fields: dict[str, Any]  # name, palette, font_family

    def __str__(self) -> str:
        return f"update brand {self.slug}: {_names(self.fields)}"


@dataclass(frozen=True)
class CreateAgent(Change):
    spec: AgentSpec
    brand_id: str  # "": the workspace's default (none known); NEW_BRAND: the brand the plan creates
    key: str

    def __str__(self) -> str:
        return f"create agent {self.spec.slug} ({self.spec.name})"

    @property
    def behaviour(self) -> dict[str, Any] | None:
        """The behaviour's fields the bundle gives (snake_case), None when it gives none."""
        return None if self.spec.behaviour is None else self.spec.behaviour.given()


@dataclass(frozen=True)
class UpdateAgent(Change):
    agent_id: str
    slug: str
    # name, brand_id (NEW_BRAND: the brand the plan creates), behaviour (its changed fields, snake_case)
    fields: dict[str, Any]

    def __str__(self) -> str:
        names = [to_camel(name) for name in self.fields if name != "behaviour"]
        names += [f"behaviour.{to_camel(name)}" for name in self.fields.get("behaviour", {})]
        return f"update agent {self.slug}: {', '.join(names)}"


@dataclass(frozen=True)
class PutDocument(Change):
    kind: DocumentKind
    document: Any

    def __str__(self) -> str:
        return f"put {self.kind}"


@dataclass(frozen=True)
class Upload(Change):
    writes: ClassVar[int] = 0
    file: BundleFile

    def __str__(self) -> str:
        return f"upload {self.file.path} ({human_size(self.file.size)})"


@dataclass(frozen=True)
class CreatePost(Change):
    spec: PostSpec
    key: str

    def __str__(self) -> str:
        draft = " (draft)" if self.spec.status == "draft" else ""
        return f"create post {self.spec.created_at}{draft}"


@dataclass(frozen=True)
class UpdatePost(Change):
    post_id: str
    created_at: str
    fields: dict[str, Any]

    def __str__(self) -> str:
        return f"update post {self.created_at}: {_names(self.fields, none_clears=True)}"

    def body(self) -> dict[str, Any]:
        """The fields as the client takes them: one back to none is ``CLEAR``, which the PATCH sends as null."""
        return {name: CLEAR if value is None else value for name, value in self.fields.items()}


@dataclass(frozen=True)
class SetPostStatus(Change):
    post_id: str
    created_at: str
    publish: bool

    def __str__(self) -> str:
        return f"{'publish' if self.publish else 'unpublish'} post {self.created_at}"


@dataclass(frozen=True)
class CreateItem(Change):
    spec: ItemSpec
    key: str

    def __str__(self) -> str:
        return f"create item {self.spec.file}"


@dataclass(frozen=True)
class UpdateItem(Change):
    item_id: str
    file: str
    fields: dict[str, Any]

    def __str__(self) -> str:
        if self.fields == {"active": False}:
            return f"deactivate item {self.file}"
        return f"update item {self.file}: {_names(self.fields)}"


@dataclass(frozen=True)
class ReplaceItem(Change):
    """The item's file changed size or type: an item takes both from its object only when its ``r2Key`` is set,
    so it is deleted and created again to show the new ones."""

    writes: ClassVar[int] = 2
    item_id: str
    spec: ItemSpec
    key: str

    def __str__(self) -> str:
        return f"replace item {self.spec.file} (its file changed size or type)"


def _question(question: str) -> str:
    """A question as a plan line names it: on one line, at most 60 characters."""
    text = " ".join(question.split())
    return f"“{text if len(text) <= 60 else text[:59] + '…'}”"


@dataclass(frozen=True)
class CreateAnswer(Change):
    spec: AnswerSpec
    key: str

    def __str__(self) -> str:
        return f"create answer {_question(self.spec.question)}"


@dataclass(frozen=True)
class UpdateAnswer(Change):
    answer_id: str
    question: str
    answer: str

    def __str__(self) -> str:
        return f"update answer {_question(self.question)}: answer"


@dataclass(frozen=True)
class DeleteAnswer(Change):
    """An answer whose question the bundle lacks (only when the bundle has an ``answers.json``)."""

    answer_id: str
    question: str

    def __str__(self) -> str:
        return f"delete answer {_question(self.question)}"


@dataclass
class Plan:
    """The changes that make the workspace's agent equal the bundle, in order: its brand, the agent, documents,
    files, posts, items, answers. ``writes`` counts API writes (creates, updates, deletes, publishes, documents; a
    replace is two); the uploads' signings are not counted, the uploads are (``uploads``, ``upload_bytes``)."""

    workspace_id: str
    bundle: Bundle = field(repr=False)
    agent_id: str | None  # None: the agent is created by the plan
    workflow_id: str | None  # the agent's active workflow (its suggestions); None until the agent exists
    changes: list[Change]

    @property
    def uploads(self) -> int:
        return sum(isinstance(change, Upload) for change in self.changes)

    @property
    def upload_bytes(self) -> int:
        return sum(change.file.size for change in self.changes if isinstance(change, Upload))

    @property
    def writes(self) -> int:
        return sum(change.writes for change in self.changes)

    @property
    def empty(self) -> bool:
        return not self.changes

    @property
    def removals(self) -> int:
        """What the plan takes off the agent's public pages and knowledge: posts unpublished, items deactivated and
        answers deleted."""
        return sum(
            (isinstance(change, SetPostStatus) and not change.publish)
            or (isinstance(change, UpdateItem) and change.fields == {"active": False})
            or isinstance(change, DeleteAnswer)
            for change in self.changes
        )

    def summary(self) -> str:
        if self.empty:
            return f"agent {self.bundle.agent.slug}: up to date, nothing to do"
        uploads = f"{self.uploads} upload{'s' * (self.uploads != 1)} ({human_size(self.upload_bytes)})"
        return f"agent {self.bundle.agent.slug}: {uploads}, {self.writes} write{'s' * (self.writes != 1)}"

    def __str__(self) -> str:
        return "\n".join([*map(str, self.changes), self.summary()])
