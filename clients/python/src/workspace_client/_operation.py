"""One call of the API, independent of the transport: what to send and how to read the answer."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal
from urllib.parse import quote

from pydantic import BaseModel, TypeAdapter

# RFC 9110 §9.2.2: a repeated request has the same effect (a DELETE of something gone is a 404, no harm).
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})


class _Clear:
    """``CLEAR``: the value of a PATCH argument that clears a field (sent as ``null``), where ``None`` means "not
    given". Only fields the service documents as clearable take it (a post's ``title``, ``sub``, ``caption``,
    ``category``, ``width``, ``height``, ``media_type``); anywhere else ``null`` is the same as leaving it out."""

    _instance: _Clear | None = None

    def __new__(cls) -> _Clear:
        cls._instance = cls._instance or super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "CLEAR"


# Typed Any so that it fits any argument's type: ``portal.update_post(ws, agent, post, title=CLEAR)``.
CLEAR: Any = _Clear()


def present(**fields: Any) -> dict[str, Any]:
    """The arguments a caller gave (None: not given), so a body model sets only those; ``CLEAR`` sets one to None."""
    return {name: None if value is CLEAR else value for name, value in fields.items() if value is not None}


def new_idempotency_key() -> str:
    return str(uuid.uuid4())


@dataclass(frozen=True)
class Operation:
    """``path`` is the OpenAPI template (``/api/workspaces/{workspaceId}``); ``path`` values are escaped once.

    ``auth``: ``bearer`` (the plane's credential is required), ``optional`` (sent when the client
    holds one) or ``none``. ``response`` is the type of the JSON answer (None: nothing to parse).
    """

    method: str
    template: str
    response: Any = None
    ok: tuple[int, ...] = (200,)
    auth: Literal["bearer", "optional", "none"] = "bearer"
    path: dict[str, str] = field(default_factory=dict)
    query: dict[str, Any] = field(default_factory=dict)
    body: BaseModel | None = None
    headers: dict[str, str] = field(default_factory=dict)
    idempotency_key: str | None = None
    keep_slashes: bool = False  # /v1/r2/{path}: an object key's "/" are part of the route

    @property
    def url_path(self) -> str:
        safe = "/" if self.keep_slashes else ""
        url = self.template
        for name, value in self.path.items():
            if not value:
                raise ValueError(f"{name} must not be empty")
            url = url.replace(f"{{{name}}}", quote(value, safe=safe))
        return url

    @property
    def params(self) -> dict[str, str]:
        return {name: str(value) for name, value in self.query.items() if value is not None}

    @property
    def request_headers(self) -> dict[str, str]:
        headers = dict(self.headers)
        if self.idempotency_key:
            headers["Idempotency-Key"] = self.idempotency_key
        return headers

    @property
    def json_body(self) -> dict[str, Any] | None:
        """The body as the service reads it: wire names; fields not set are left out (the service's defaults apply).

        Members a model does not declare (a wrap or site document's own) are sent as given, ``null`` included: they
        are the caller's JSON, not fields with defaults. A field set to None (``CLEAR``) is sent as ``null``."""
        if self.body is None:
            return None
        fields = _given(self.body)
        extra = self.body.model_extra
        if not extra:
            return fields
        given = self.body.model_dump(mode="json", by_alias=True, exclude_unset=True)  # in the caller's order
        return {name: fields.get(name, value) for name, value in given.items() if name in fields or name in extra}

    @property
    def retry_safe(self) -> bool:
        """Whether sending it twice does no harm: an idempotent method, or a POST carrying an Idempotency-Key."""
        return self.method in IDEMPOTENT_METHODS or self.idempotency_key is not None

    def parse(self, content: bytes) -> Any:
        return None if self.response is None else adapter(self.response).validate_json(content)


def _given(body: BaseModel) -> dict[str, Any]:
    """The fields set on ``body``, wire names; one set to None (``CLEAR``) is ``null``, also inside a nested model
    (an agent's ``behaviour``: ``{"behaviour": {"model": null}}`` puts its model back to the default)."""
    fields: dict[str, Any] = body.model_dump(mode="json", by_alias=True, exclude_unset=True, exclude_none=True)
    model = type(body).model_fields
    for name in body.model_fields_set & model.keys():
        value = getattr(body, name)
        if value is None:
            fields[model[name].alias or name] = None
        elif isinstance(value, BaseModel):
            fields[model[name].alias or name] = _given(value)
    return fields


@cache
def adapter(kind: Any) -> TypeAdapter[Any]:
    return TypeAdapter(kind)
