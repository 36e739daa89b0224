"""The deployment's models: one list, read once per container (authoring.md, "How an agent answers").

A deployment names its models in one place, the template parameter ``ChatModels`` (a JSON list, given to the
functions as ``CHAT_MODELS``). Each model has an ``id`` agents choose by, a display ``name``, a ``provider``
(``bedrock``, ``openai`` or ``offline``), its price ``creditsPerTurn``, its ``contextTokens`` and the provider's
own settings: ``modelId`` for Bedrock; ``baseUrl``, ``modelName`` and ``secretId`` (a Secrets Manager secret holding
the key) for an OpenAI-compatible server. Exactly one is the ``default``: an agent whose model is unset, or whose
model the deployment no longer lists, runs on it (never an error).

Without ``CHAT_MODELS`` the list is the one model deployments had before it: ``CHAT_MODEL`` (``bedrock`` with
``BEDROCK_MODEL_ID``, or ``offline``) at ``CHAT_CREDITS_PER_TURN``.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from core.platform import registry
from core.platform.settings import PlanLimits, Settings, get_settings

Provider = Literal["bedrock", "openai", "offline"]


class ModelSpec(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=64, pattern=r"^[a-z0-9][a-z0-9._-]*$")
    name: str = Field(min_length=1, max_length=80)
    provider: Provider
    credits_per_turn: int = Field(ge=1)
    context_tokens: int = Field(8000, ge=512)
    default: bool = False
    # bedrock: the Converse model id (or inference profile)
    model_id: str | None = None
    # openai: the server's base URL (…/v1), the model's name there, the secret holding its key ("" for none)
    base_url: str | None = None
    model_name: str | None = None
    secret_id: str | None = None
    # The plans (``free``, ``pro``, ``business``) whose workspaces' agents may choose it; None: every plan. A plan's
    # own ``PlanLimits.models`` narrows it further (docs/decisions.md, "Which plans offer which models").
    plans: tuple[str, ...] | None = None

    @model_validator(mode="after")
    def _provider_settings(self) -> ModelSpec:
        if self.provider == "bedrock" and not self.model_id:
            raise ValueError(f"model {self.id}: a bedrock model needs modelId")
        if self.provider == "openai" and not (self.base_url and self.model_name):
            raise ValueError(f"model {self.id}: an openai model needs baseUrl and modelName")
        return self

    def wire(self) -> dict[str, object]:
        """What ``GET /api/models`` shows of it: never the provider's settings (URLs, secrets, ids)."""
        return {
            "id": self.id,
            "name": self.name,
            "provider": self.provider,
            "creditsPerTurn": self.credits_per_turn,
            "contextTokens": self.context_tokens,
            "default": self.default,
        }


class Catalogue:
    def __init__(self, models: list[ModelSpec]) -> None:
        if not models:
            raise ValueError("the deployment lists no model")
        ids = [model.id for model in models]
        if len(set(ids)) != len(ids):
            raise ValueError(f"model ids repeat: {ids}")
        defaults = [model for model in models if model.default]
        if len(defaults) > 1:
            raise ValueError(f"more than one default model: {[m.id for m in defaults]}")
        self.models = tuple(models)
        self.default = defaults[0] if defaults else models[0]
        self._by_id = {model.id: model for model in models}

    def get(self, model_id: str) -> ModelSpec | None:
        return self._by_id.get(model_id)

    def ids(self) -> tuple[str, ...]:
        return tuple(model.id for model in self.models)

    def offered(self, plan: str, limits: PlanLimits) -> tuple[str, ...]:
        """The ids an agent of a workspace on ``plan`` (whose limits are ``limits``) may choose: the model's
        ``plans`` name it (or are unset) and the plan's ``models`` name the model (or are unset)."""
        return tuple(
            model.id for model in self.models
            if (model.plans is None or plan in model.plans) and (limits.models is None or model.id in limits.models)
        )  # fmt: skip

    def resolve(self, model_id: str | None) -> ModelSpec:
        """The model an agent runs on: its own if the deployment still lists it, else the default."""
        return self._by_id.get(model_id, self.default) if model_id else self.default


def parse(settings: Settings) -> Catalogue:
    if settings.chat_models.strip():
        raw = json.loads(settings.chat_models)
        if not isinstance(raw, list):
            raise ValueError("CHAT_MODELS must be a JSON list")
        return Catalogue([ModelSpec.model_validate(entry) for entry in raw])
    if settings.chat_model == "offline":
        only = ModelSpec(id="offline", name="Offline", provider="offline",
                         credits_per_turn=settings.chat_credits_per_turn, default=True)  # fmt: skip
    else:
        only = ModelSpec(id=settings.bedrock_model_id.replace(":", "-").lower()[:64], name=settings.bedrock_model_id,
                         provider="bedrock", model_id=settings.bedrock_model_id,
                         credits_per_turn=settings.chat_credits_per_turn, default=True)  # fmt: skip
    return Catalogue([only])


@registry.track  # forgotten with the settings by ``platform_providers.reset()`` (tests change the environment)
@cache
def catalogue() -> Catalogue:
    """The container's list (settings are read once per container too)."""
    return parse(get_settings())
