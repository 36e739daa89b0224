"""The one place that reads the environment.

Read lazily on first use and cached for the life of the container, so importing a
handler never touches ``os.environ`` and tests can set variables before first use
(and call ``get_settings.cache_clear()`` to re-read them).
"""

from __future__ import annotations

import os
from functools import cache
from typing import Literal

from pydantic import BaseModel, Field

ALLOWED_R2_PREFIXES = (
    "projects/",
    "workflows/",
    "config/",
    "assets/",
    "meta/",
    "wrapper/",
    "brands/",
    "media/",
    "public/",
)


class PlanLimits(BaseModel):
    workspaces: int
    api_keys: bool
    agents_per_workspace: int
    object_bytes: int  # the largest object one upload may store
    storage_bytes: int  # every current object of a workspace together
    knowledge_chars: int  # text indexed per agent: documents past it are failed (authoring.md, "Knowledge")
    # The model ids (core.platform.model_catalogue) an agent of this plan may choose; None: every model deployed.
    models: tuple[str, ...] | None = None


MIB, GIB = 1024**2, 1024**3
# decisions.md's defaults (workspaces, keys); authoring.md's limits (agents, object and storage bytes) are this
# project's (docs/decisions.md, "Plans"). "Multi-workspace" (API keys allowed) means a limit above one.
PLAN_LIMITS = {
    "free": PlanLimits(workspaces=1, api_keys=False, agents_per_workspace=3, object_bytes=25 * MIB,
                       storage_bytes=500 * MIB, knowledge_chars=500_000),
    "pro": PlanLimits(workspaces=5, api_keys=True, agents_per_workspace=25, object_bytes=500 * MIB,
                      storage_bytes=25 * GIB, knowledge_chars=5_000_000),
    "business": PlanLimits(workspaces=50, api_keys=True, agents_per_workspace=200, object_bytes=5 * GIB,
                           storage_bytes=250 * GIB, knowledge_chars=20_000_000),
}  # fmt: skip
# What a 402 says, besides the plan and its limit: where a self-hosted deployment's operator raises it.
RAISED_BY = (
    "On a self-hosted deployment an operator changes a user's plan: python -m ops [--stack NAME] set-plan --email "
    "ADDRESS --plan PLAN (make ops ARGS=... locally); the DefaultPlan parameter sets new users' plan."
)


def plan_limit_message(plan: str, limit: str, noun: str) -> str:
    """A 402's message naming ``plan``, what its ``limit`` (a ``PlanLimits`` field) allows of ``noun``, the plans
    that allow more, and how it is raised."""
    allowed = getattr(PLAN_LIMITS[plan], limit) if plan in PLAN_LIMITS else 0
    if isinstance(allowed, bool):
        more = [name for name, limits in PLAN_LIMITS.items() if getattr(limits, limit)]
        said = f"The {plan} plan has no {noun}; {', '.join(more)} have them."
    else:
        more = [f"{name}: {getattr(lim, limit)}" for name, lim in PLAN_LIMITS.items() if getattr(lim, limit) > allowed]
        said = f"The {plan} plan's limit of {noun} is {allowed}" + (f" ({', '.join(more)})." if more else ".")
    return f"{said} {RAISED_BY}"


class Settings(BaseModel):
    main_table: str = Field(alias="MAIN_TABLE")
    api_keys_table: str = Field(alias="API_KEYS_TABLE")
    ledger_table: str = Field(alias="LEDGER_TABLE")
    rate_limits_table: str = Field(alias="RATE_LIMITS_TABLE")
    content_bucket: str = Field(alias="CONTENT_BUCKET")
    default_key_rate_limit: int = Field(600, alias="DEFAULT_KEY_RATE_LIMIT", ge=1)
    credit_usd_cents: int = Field(1, alias="CREDIT_USD_CENTS", ge=0)
    # A hold not settled or released by then (its container died) is finished by the sweeper. It must
    # outlast the longest billed function (chat: 120 s), or a live turn's hold would be swept.
    hold_seconds: int = Field(900, alias="HOLD_SECONDS", ge=300)
    max_body_bytes: int = Field(256 * 1024, alias="MAX_BODY_BYTES", ge=1)
    # Media is fetched with a bearer key: caches outside the browser must not keep it (an object's own
    # Cache-Control metadata, set at upload, wins).
    r2_cache_control: str = Field("private, max-age=3600", alias="R2_CACHE_CONTROL")
    # Lambda streams at most 200 MB per response, the metadata prelude included: a longer part is cut to this
    # (206 with its real Content-Range), a larger whole object is a redirect to S3.
    r2_max_response_bytes: int = Field(200 * 1024 * 1024 - 64 * 1024, alias="R2_MAX_RESPONSE_BYTES", ge=1)
    # Read-plane responses are public to any page holding a key, so any origin may call it.
    brain_allow_origin: str = Field("*", alias="BRAIN_ALLOW_ORIGIN")
    portal_allow_origin: str = Field("http://localhost:5173", alias="PORTAL_ALLOW_ORIGIN")
    # Which API a shared function (the gateway fallback) is serving.
    api_plane: Literal["brain", "portal"] = Field("brain", alias="API_PLANE")
    service_name: str = Field("workspace-service", alias="POWERTOOLS_SERVICE_NAME")

    # --- signed media URLs: the HMAC secret's id (only /v1/media-urls and /v1/r2 are given it and may read it)
    media_url_secret_id: str = Field("", alias="MEDIA_URL_SECRET_ID")

    # --- management plane: sign-in, sessions, portal JWT
    portal_jwt_secret_id: str = Field("", alias="PORTAL_JWT_SECRET_ID")
    session_days: int = Field(30, alias="SESSION_DAYS", ge=1)
    magic_link_minutes: int = Field(15, alias="MAGIC_LINK_MINUTES", ge=1)
    # Sign-in mail sent at most this often in any rolling MAGIC_LINK_LIMIT_MINUTES, per address and per source
    # IP (IPv6: per /64); past that, a request still answers 202 but nothing is mailed (docs/decisions.md).
    magic_link_per_address: int = Field(5, alias="MAGIC_LINK_PER_ADDRESS", ge=1)
    magic_link_per_ip: int = Field(30, alias="MAGIC_LINK_PER_IP", ge=1)
    magic_link_limit_minutes: int = Field(15, alias="MAGIC_LINK_LIMIT_MINUTES", ge=1)
    # Invitation mail sent at most this often in any rolling INVITATION_LIMIT_MINUTES: per workspace, per workspace
    # and invited address, and per invited address from all workspaces together (larger than one workspace's, so no
    # one workspace exhausts it); past one, 429 RATE_LIMITED and nothing stored (docs/decisions.md).
    invitations_per_workspace: int = Field(50, alias="INVITATIONS_PER_WORKSPACE", ge=1)
    invitations_per_address: int = Field(5, alias="INVITATIONS_PER_ADDRESS", ge=1)
    invitations_to_address: int = Field(20, alias="INVITATIONS_TO_ADDRESS", ge=1)
    invitation_limit_minutes: int = Field(60, alias="INVITATION_LIMIT_MINUTES", ge=1)
    # The console the mail links open; empty on a stack that serves it: the SSM parameter named below holds its
    # address (core.identity.app_url_store; only the two mailers are given the name and may read it).
    portal_app_url: str = Field("http://localhost:5173", alias="PORTAL_APP_URL")
    portal_app_url_parameter: str = Field("", alias="PORTAL_APP_URL_PARAMETER")
    # Secure cookies everywhere but plain-http local runs.
    cookie_secure: bool = Field(True, alias="COOKIE_SECURE")
    mail_transport: Literal["ses", "outbox"] = Field("ses", alias="MAIL_TRANSPORT")
    mail_from: str = Field("no-reply@example.com", alias="MAIL_FROM")
    outbox_dir: str = Field(".local/outbox", alias="OUTBOX_DIR")
    google_client_ids: str = Field("", alias="GOOGLE_CLIENT_IDS")
    apple_client_ids: str = Field("", alias="APPLE_CLIENT_IDS")
    google_jwks_url: str = Field("https://www.googleapis.com/oauth2/v3/certs", alias="GOOGLE_JWKS_URL")
    apple_jwks_url: str = Field("https://appleid.apple.com/auth/keys", alias="APPLE_JWKS_URL")
    purge_queue_url: str = Field("", alias="PURGE_QUEUE_URL")
    # Writers queue an agent here when what it knows changes; S3 notifies it of new objects (core.knowledge).
    knowledge_queue_url: str = Field("", alias="KNOWLEDGE_QUEUE_URL")
    # The plan of a user's first sign-in (template parameter DefaultPlan): a self-hosted deployment may give
    # every new user keys without an operator.
    default_plan: Literal["free", "pro", "business"] = Field("free", alias="DEFAULT_PLAN")

    # --- authoring: uploads go straight to S3 with a presigned POST that lives this long (S3 allows far more)
    upload_url_seconds: int = Field(900, alias="UPLOAD_URL_SECONDS", ge=60, le=900)
    # A deleted workspace's or agent's tombstone (and its last purge pass) waits this long after the deletion, so an
    # upload signed just before it that lands later is purged too: the upload URL's lifetime and a minute.
    purge_settle_seconds: int = Field(960, alias="PURGE_SETTLE_SECONDS", ge=0)
    # A retention change re-stamps the stored turns once the chat turns in flight have landed: a turn reads the
    # workspace when it starts and is stored when it ends, up to the chat function's 120 s timeout later.
    restamp_delay_seconds: int = Field(180, alias="RESTAMP_DELAY_SECONDS", ge=0, le=900)

    # --- webhooks (core.webhooks): a workspace's webhooks at most (authoring.md: 10; the fan-out reads them in one
    # Query), and whether a webhook may name http:// and loopback addresses: true only in the local runner and tests,
    # never other private classes (core.webhooks.addresses).
    webhooks_max: int = Field(10, alias="WEBHOOKS_MAX", ge=1, le=100)
    webhook_allow_local: bool = Field(False, alias="WEBHOOK_ALLOW_LOCAL")
    # The delivery worker's queue (core.webhooks.queue): the fan-out and the test event send a delivery's message.
    webhook_delivery_queue_url: str = Field("", alias="WEBHOOK_DELIVERY_QUEUE_URL")
    # The waits after each failed attempt, in seconds (authoring.md: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; then
    # failed): one more attempt than waits. The local runner and tests may shorten it (core.webhooks.delivery).
    webhook_retry_seconds: str = Field("5,300,1800,7200,18000,36000,36000", alias="WEBHOOK_RETRY_SECONDS",
                                       pattern=r"^\s*\d+(\s*,\s*\d+)*\s*$")  # fmt: skip

    # --- chat
    chat_model: Literal["bedrock", "offline"] = Field("bedrock", alias="CHAT_MODEL")
    bedrock_model_id: str = Field("amazon.nova-lite-v1:0", alias="BEDROCK_MODEL_ID")
    chat_credits_per_turn: int = Field(1, alias="CHAT_CREDITS_PER_TURN", ge=1)
    # The deployment's models, one JSON list (template parameter ChatModels; core.platform.model_catalogue). Empty:
    # one model made of CHAT_MODEL, BEDROCK_MODEL_ID and CHAT_CREDITS_PER_TURN, as deployments before the list had.
    chat_models: str = Field("", alias="CHAT_MODELS")
    chat_visitor_turns_per_minute: int = Field(20, alias="CHAT_VISITOR_TURNS_PER_MINUTE", ge=1)
    # An owner's previews (POST …/agents/{agentId}/preview), per user over every workspace (authoring.md: 20).
    preview_turns_per_minute: int = Field(20, alias="PREVIEW_TURNS_PER_MINUTE", ge=1)
    # A line every so often while the model is silent, so proxies and browsers keep the stream open.
    chat_keepalive_seconds: float = Field(10.0, alias="CHAT_KEEPALIVE_SECONDS", gt=0)
    offline_model_delay_ms: int = Field(30, alias="OFFLINE_MODEL_DELAY_MS", ge=0)
    # A file the offline model waits for after its first delta when a prompt asks (``[[offline-gate]]``): a test
    # opens it once it has read that delta, so streaming is shown by order, not by timing. Empty: no gate.
    offline_model_gate: str = Field("", alias="OFFLINE_MODEL_GATE")

    model_config = {"populate_by_name": True, "frozen": True}

    def client_ids(self, provider: str) -> list[str]:
        raw = self.google_client_ids if provider == "google" else self.apple_client_ids
        return [value.strip() for value in raw.split(",") if value.strip()]

    @property
    def plans(self) -> dict[str, PlanLimits]:
        return PLAN_LIMITS


@cache
def get_settings() -> Settings:
    known = {field.alias for field in Settings.model_fields.values()}
    return Settings.model_validate({k: v for k, v in os.environ.items() if k in known})
