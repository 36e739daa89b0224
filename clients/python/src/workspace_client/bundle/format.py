"""Reading a bundle folder (docs/bundles.md) into typed objects, refusing what the service would refuse.

Entries are read in the service's normal form, so that comparing them with what the service holds compares like
with like: strings stripped (the service strips them), ``createdAt`` as ``YYYY-MM-DDTHH:MM:SS.mmmZ`` in UTC,
channels without repeats, pages in the order the feed shows them, and every default the service applies.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic import ValidationError as PydanticError
from pydantic.alias_generators import to_camel

from .files import DOCUMENTS, BundleError, BundleFile, bundle_files, inside

MAX_DOCUMENT_BYTES = 64 * 1024
RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$")
Kind = Literal["image", "video", "carousel", "story", "reel", "text"]
ItemKind = Literal["document", "image", "video", "audio", "link", "text"]


def normal_time(value: str) -> str:
    """RFC 3339 with a zone → the fixed-width UTC form the service stores (milliseconds, truncated, as it does)."""
    if not RFC3339.fullmatch(value):
        raise ValueError("must be an RFC 3339 time with a zone, e.g. 2026-11-22T05:23:35.123Z")
    parsed = datetime.fromisoformat(value)
    if parsed.year < 1970:
        raise ValueError("must be 1970 or later")
    parsed = parsed.astimezone(UTC)
    return parsed.strftime("%Y-%m-%dT%H:%M:%S.") + f"{parsed.microsecond // 1000:03d}Z"


class Spec(BaseModel):
    """An entry of a bundle file: its wire (camelCase) names only, unknown fields refused, strings stripped."""

    model_config = ConfigDict(
        extra="forbid", strict=True, str_strip_whitespace=True, alias_generator=to_camel, validate_by_name=False
    )


S = TypeVar("S", bound=Spec)


SLUG = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
Color = Annotated[str, Field(pattern=r"^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")]


class BrandSpec(Spec):
    """The agent's brand, carried by the bundle: found in the workspace by its slug, created or updated to match.
    A field left out (``palette``, ``fontFamily``) is left as the workspace has it."""

    slug: str = Field(pattern=SLUG, max_length=48)
    name: str = Field(min_length=1, max_length=80)
    palette: list[Color] | None = Field(None, max_length=16)
    font_family: str | None = Field(None, max_length=100)


# Newlines, tabs and carriage returns are text; any other control character (C0, DEL, C1) the service refuses.
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


class BehaviourSpec(Spec):
    """How the agent answers (authoring.md, "How an agent answers"): the fields the bundle gives are made to match; a
    field left out is left as the agent has it (a new agent: the service's default). ``model`` null is the
    deployment's default model, a value like any other (an export writes every field)."""

    instructions: str | None = Field(None, max_length=8000)
    model: str | None = Field(None, min_length=1, max_length=64)
    temperature: float | None = Field(None, ge=0, le=1)
    max_reply_tokens: int | None = Field(None, ge=64, le=4096)
    knowledge_only: bool | None = None
    fallback: str | None = Field(None, max_length=500)

    @field_validator("instructions", "fallback")
    @classmethod
    def _text(cls, value: str | None) -> str | None:
        if value is not None and (found := CONTROL.search(value)):
            raise ValueError(f"a control character (U+{ord(found.group()):04X}) at {found.start()}: only newlines "
                             "and tabs may be in the text")  # fmt: skip
        return value

    @field_validator("instructions", "temperature", "max_reply_tokens", "knowledge_only", "fallback")
    @classmethod
    def _not_null(cls, value: Any) -> Any:
        if value is None:  # only the model has a null of its own (the default model); a bundle says what it wants
            raise ValueError("must be a value (leave the field out to keep the agent's)")
        return value

    def given(self) -> dict[str, Any]:
        """The fields the bundle gives (``model`` null among them when written so), by snake_case name."""
        return {name: getattr(self, name) for name in type(self).model_fields if name in self.model_fields_set}


class AgentSpec(Spec):
    slug: str = Field(pattern=SLUG, max_length=48)
    name: str = Field(min_length=1, max_length=80)
    # The brand itself (made to match), or the slug of a brand of the workspace; None: the workspace's default brand.
    brand: BrandSpec | str | None = None
    # None: the agent's behaviour is left as it is (a new agent's is the service's default).
    behaviour: BehaviourSpec | None = None

    @property
    def brand_slug(self) -> str | None:
        return self.brand.slug if isinstance(self.brand, BrandSpec) else self.brand


class PageSpec(Spec):
    key: str
    media_type: Literal["image", "video"] | None = None
    width: int | None = None
    height: int | None = None
    order: int | None = None


class PostSpec(Spec):
    created_at: str
    kind: Kind
    key: str
    title: str | None = None
    sub: str | None = None
    caption: str | None = None
    hashtags: list[str] = Field(default_factory=list)
    channels: list[str] = Field(default_factory=list)
    category: str | None = None
    width: int | None = None
    height: int | None = None
    pages: list[PageSpec] = Field(default_factory=list)
    poster: str = ""
    playable: str = ""
    status: Literal["published", "draft"] = "published"

    @field_validator("created_at")
    @classmethod
    def _normal_time(cls, value: str) -> str:
        return normal_time(value)

    @field_validator("channels")
    @classmethod
    def _distinct(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(value))  # the service keeps the first of repeats

    @field_validator("pages")
    @classmethod
    def _feed_order(cls, value: list[PageSpec]) -> list[PageSpec]:
        return sorted(value, key=lambda page: (page.order is None, page.order or 0))  # as the feed shows them

    def media(self) -> dict[str, str]:
        """Every bundle file the post names, by the field naming it (``pages[2].key``)."""
        named = {"key": self.key, "poster": self.poster, "playable": self.playable}
        named |= {f"pages[{n}].key": page.key for n, page in enumerate(self.pages)}
        return {field: path for field, path in named.items() if path}


class AnswerSpec(Spec):
    """An owner's answer (authoring.md, "The owner's answers"): its ``question`` is its identity in the bundle."""

    question: str = Field(min_length=1, max_length=500)
    answer: str = Field(min_length=1, max_length=4000)

    @field_validator("question", "answer")
    @classmethod
    def _text(cls, value: str) -> str:
        if found := CONTROL.search(value):
            raise ValueError(f"a control character (U+{ord(found.group()):04X}) at {found.start()}: only newlines "
                             "and tabs may be in the text")  # fmt: skip
        return value


class ItemSpec(Spec):
    name: str = Field(min_length=1)
    kind: ItemKind
    file: str
    folder: str = ""
    order: int = 0
    origin: Literal["upload", "generated", "import"] = "upload"
    active: bool = True


@dataclass(frozen=True)
class Bundle:
    """A bundle read and checked. A document that is None was absent (the agent's is left as it is)."""

    root: Path
    agent: AgentSpec
    wrap: dict[str, Any] | None
    site: dict[str, Any] | None
    suggestions: Any
    posts: list[PostSpec]
    items: list[ItemSpec]
    files: dict[str, BundleFile]
    answers: list[AnswerSpec] | None = None  # None: no answers.json (the agent's answers are left as they are)


def load_bundle(root: Path) -> Bundle:
    """The bundle at ``root``, checked (``BundleError`` naming the file, the entry and the field)."""
    root = Path(root)
    real = Path(os.path.realpath(root))  # the folder the user named, a link to it followed: what links must stay in
    if not root.exists():  # a mistyped folder: said as such, not as a folder missing its agent.json
        raise BundleError(f"{root}: no such folder")
    if not root.is_dir():
        raise BundleError(f"{root}: not a folder (a bundle is a folder holding agent.json)")
    if not (root / "agent.json").is_file():
        raise BundleError(f"{root}: not a bundle (no agent.json)")
    _no_unknown_documents(root)
    files = bundle_files(root)
    raw_agent = _json(real, "agent.json")
    if isinstance(raw_agent, dict) and isinstance(raw_agent.get("brand"), dict):  # its own fields' errors, by name
        _entry(BrandSpec, raw_agent["brand"], "agent.json: brand")
    if isinstance(raw_agent, dict) and isinstance(raw_agent.get("behaviour"), dict):
        _entry(BehaviourSpec, raw_agent["behaviour"], "agent.json: behaviour")
    agent = _entry(AgentSpec, raw_agent, "agent.json")
    wrap, site = _document(real, "wrap.json"), _document(real, "site.json")
    if site is not None and not isinstance(site.get("pages"), list):
        raise BundleError("site.json: pages: must be an array")
    suggestions = _bounded("suggestions.json", _json(real, "suggestions.json"))
    posts = [_entry(PostSpec, raw, f"posts.json[{n}]") for n, raw in enumerate(_list(real, "posts.json"))]
    items = [_entry(ItemSpec, raw, f"items.json[{n}]") for n, raw in enumerate(_list(real, "items.json"))]
    _unique("posts.json", "createdAt", [post.created_at for post in posts])
    _unique("items.json", "file", [item.file for item in items])
    raw_answers = _json(real, "answers.json")
    answers = None if raw_answers is None else [
        _entry(AnswerSpec, raw, f"answers.json[{n}]") for n, raw in enumerate(_list(real, "answers.json"))
    ]  # fmt: skip
    _unique("answers.json", "question", [answer.question for answer in answers or []])
    named = [(f"posts.json[{n}] (createdAt {post.created_at})", field, path)
             for n, post in enumerate(posts) for field, path in post.media().items()]  # fmt: skip
    named += [(f"items.json[{n}] ({item.name})", "file", item.file) for n, item in enumerate(items)]
    for where, field, path in named:
        if path not in files:
            raise BundleError(f"{where}: {field}: {path} is not a file of the bundle")
    return Bundle(root, agent, wrap, site, suggestions, posts, items, files, answers)


def _no_unknown_documents(root: Path) -> None:
    """A JSON file beside agent.json that is none of the documents is a misnamed one (``post.json``), not a file to
    upload: published as it is, the bundle would have no posts, and publish would unpublish every post there is."""
    for path in sorted(root.glob("*.json")):
        if path.name not in DOCUMENTS:
            close = difflib.get_close_matches(path.name, DOCUMENTS, n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            raise BundleError(
                f"{path.name}: not a document of a bundle ({', '.join(DOCUMENTS)}): {hint}A file to upload goes in a "
                "folder of the bundle (media/, docs/, ...)"
            )


def _json(root: Path, name: str, *, missing: Any = None) -> Any:
    """The document ``name`` of the bundle whose real folder is ``root`` (a link to it must stay in it)."""
    path = inside(root, root / name, name)
    if not path.is_file():
        return missing
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as error:
        raise BundleError(f"{name}: not UTF-8 ({error.reason} at byte {error.start})") from None
    except json.JSONDecodeError as error:
        raise BundleError(f"{name}: not JSON: {error.msg} (line {error.lineno}, column {error.colno})") from None


def _document(root: Path, name: str) -> dict[str, Any] | None:
    document = _json(root, name)
    if document is not None and not isinstance(document, dict):
        raise BundleError(f"{name}: must be a JSON object")
    return _bounded(name, document)


def _bounded(name: str, document: Any) -> Any:
    size = len(json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode())
    if size > MAX_DOCUMENT_BYTES:
        raise BundleError(f"{name}: at most {MAX_DOCUMENT_BYTES} bytes of JSON (this is {size})")
    return document


def _list(root: Path, name: str) -> list[Any]:
    entries = _json(root, name, missing=[])
    if not isinstance(entries, list):
        raise BundleError(f"{name}: must be a JSON array of entries")
    return entries


def _entry(kind: type[S], raw: Any, where: str) -> S:  # noqa: UP047 - the client runs on Python 3.11, before type parameters
    try:
        return kind.model_validate(raw)
    except PydanticError as error:
        first = error.errors()[0]
        field = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in first["loc"]).lstrip(".")
        message = "unknown field" if first["type"] == "extra_forbidden" else first["msg"]
        raise BundleError(f"{where}: {field or 'entry'}: {message}") from None


def _unique(name: str, field: str, values: list[str]) -> None:
    seen: dict[str, int] = {}
    for n, value in enumerate(values):
        if value in seen:
            raise BundleError(f"{name}[{n}]: {field}: {value} is also entry {seen[value]}'s (it must be unique)")
        seen[value] = n
