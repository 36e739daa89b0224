"""``GET /api/models``: the deployment's models as any signed-in user sees them (authoring.md, "How an agent
answers"). Only what an owner chooses by: never a provider's settings (model ids, URLs, secrets) nor which plans
may choose a model (a plan that does not offer one is told so by the 402 of the write that names it)."""

from __future__ import annotations

from pydantic import Field

from core.platform.model_catalogue import Provider, catalogue
from core.platform.models import ApiModel


class ModelInfo(ApiModel):
    id: str = Field(description="what an agent's behaviour.model names")
    name: str
    provider: Provider
    credits_per_turn: int = Field(description="what one chat turn on this model holds and charges")
    context_tokens: int
    default: bool = Field(description="the model of an agent whose behaviour.model is null (exactly one is)")


class ModelList(ApiModel):
    models: list[ModelInfo] = Field(description="in the deployment's order")


def model_list() -> ModelList:
    return ModelList(models=[ModelInfo.model_validate(spec.wire()) for spec in catalogue().models])
