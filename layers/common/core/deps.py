"""Per-container singletons: repositories and services wired to the configured tables.

Built on first use (never at import) and cached for the container's life. Tests
swap implementations by calling ``reset()`` after changing the environment.
"""

from __future__ import annotations

import json
import threading
import time
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from . import aws
from .lambda_runtime import snapstart
from .settings import PlanLimits, get_settings

if TYPE_CHECKING:  # each accessor imports what it builds: a function loads the services it uses, no others
    from .chat.model import ChatModel
    from .mail import Mailer
    from .repositories.api_keys import ApiKeyRepository
    from .repositories.users import UserRepository
    from .services.chat import ChatService
    from .services.credits import CreditService
    from .services.idempotency import Idempotency
    from .services.identity import IdentityService
    from .services.key_admin import KeyAdminService
    from .services.key_auth import KeyAuthenticator
    from .services.media import MediaService
    from .services.media_urls import MediaUrlService
    from .services.purge import PurgeService
    from .services.read_plane import ReadPlaneService
    from .services.workspaces import WorkspaceService

SECRET_MAX_AGE = 300  # a rotated signing secret is picked up within five minutes


# --- read plane


@cache
def api_keys() -> ApiKeyRepository:
    from .repositories.api_keys import ApiKeyRepository

    return ApiKeyRepository(aws.dynamodb(), get_settings().api_keys_table)


@cache
def key_authenticator() -> KeyAuthenticator:
    from .repositories.rate_limits import RateLimitRepository
    from .services.key_auth import KeyAuthenticator

    settings = get_settings()
    limits = RateLimitRepository(aws.dynamodb(), settings.rate_limits_table)
    return KeyAuthenticator(api_keys(), limits, settings.default_key_rate_limit, signing_secret=media_url_secret)


_media_secret_lock = threading.Lock()
_media_secret: tuple[float, bytes] | None = None


def media_url_secret() -> bytes:
    """The signed-media-URL secret (a Secrets Manager secret of its own, so read-plane functions never hold
    the portal JWT key), fetched on first use per container and re-read every five minutes."""
    global _media_secret  # noqa: PLW0603 - a per-container cache, like portal_secret's
    with _media_secret_lock:
        if _media_secret is None or time.monotonic() - _media_secret[0] > SECRET_MAX_AGE:
            response = aws.client("secretsmanager").get_secret_value(SecretId=get_settings().media_url_secret_id)
            _media_secret = (time.monotonic(), response["SecretString"].encode())
        return _media_secret[1]


@cache
def read_plane() -> ReadPlaneService:
    from .repositories.agents import AgentRepository
    from .services.read_plane import ReadPlaneService

    return ReadPlaneService(AgentRepository(aws.dynamodb(), get_settings().main_table))


@cache
def media() -> MediaService:
    from .repositories.content import ObjectReader
    from .services.media import MediaService

    settings = get_settings()
    reader = ObjectReader(aws.s3(), settings.content_bucket)
    return MediaService(reader, settings.r2_cache_control, settings.r2_max_response_bytes)


@cache
def media_urls() -> MediaUrlService:
    from .services.media_urls import MediaUrlService

    return MediaUrlService(media_url_secret)


@cache
def chat_model() -> ChatModel:
    settings = get_settings()
    if settings.chat_model == "offline":
        from .chat.offline import OfflineModel

        return OfflineModel(delay_seconds=settings.offline_model_delay_ms / 1000)
    from .chat.bedrock import BedrockModel

    return BedrockModel(aws.bedrock_runtime(), settings.bedrock_model_id)


@cache
def chat() -> ChatService:
    from .repositories.agents import AgentRepository
    from .repositories.conversations import ConversationStore
    from .repositories.rate_limits import RateLimitRepository
    from .repositories.workspaces import WorkspaceRepository
    from .services.chat import ChatService
    from .services.rate_limit import SlidingWindowLimiter

    settings = get_settings()
    return ChatService(
        agents=AgentRepository(aws.dynamodb(), settings.main_table),
        workspaces=WorkspaceRepository(aws.dynamodb(), settings.main_table),
        limiter=SlidingWindowLimiter(RateLimitRepository(aws.dynamodb(), settings.rate_limits_table)),
        credits=credits(),
        model=chat_model,
        conversations=ConversationStore(aws.s3(), settings.content_bucket),
        price=settings.chat_credits_per_turn,
        visitor_limit=settings.chat_visitor_turns_per_minute,
        max_tokens=settings.chat_max_tokens,
        keepalive_seconds=settings.chat_keepalive_seconds,
    )


# --- management plane

_secret_lock = threading.Lock()
_secret: tuple[float, bytes] | None = None


def portal_secret() -> bytes:
    """The portal JWT signing secret from Secrets Manager, fetched once per container (then every 5 min)."""
    global _secret  # noqa: PLW0603 - a per-container cache, like the functools caches above
    with _secret_lock:
        if _secret is None or time.monotonic() - _secret[0] > SECRET_MAX_AGE:
            response = aws.client("secretsmanager").get_secret_value(SecretId=get_settings().portal_jwt_secret_id)
            _secret = (time.monotonic(), response["SecretString"].encode())
        return _secret[1]


def plan_of(plan: str) -> PlanLimits:
    plans = get_settings().plans
    return plans.get(plan, plans["free"])


@cache
def users() -> UserRepository:
    from .repositories.users import UserRepository

    return UserRepository(aws.dynamodb(), get_settings().main_table)


@cache
def identity() -> IdentityService:
    from .auth.oidc import JwksCache
    from .repositories.rate_limits import RateLimitRepository
    from .services.identity import IdentityService, MailLimits
    from .services.rate_limit import SlidingWindowLimiter

    settings = get_settings()
    jwks = {
        "google": JwksCache(settings.google_jwks_url),
        "apple": JwksCache(settings.apple_jwks_url),
    }
    limits = MailLimits(
        per_address=settings.magic_link_per_address, per_ip=settings.magic_link_per_ip,
        window_seconds=settings.magic_link_limit_minutes * 60,
    )  # fmt: skip
    return IdentityService(
        users(), mailer, portal_secret, jwks.__getitem__, settings.client_ids,
        portal_app_url=settings.portal_app_url, magic_link_seconds=settings.magic_link_minutes * 60,
        session_seconds=settings.session_days * 86400,
        mail_limiter=SlidingWindowLimiter(RateLimitRepository(aws.dynamodb(), settings.rate_limits_table)),
        mail_limits=limits,
    )  # fmt: skip


@cache
def mailer() -> Mailer:
    from .mail import OutboxMailer, SesMailer

    settings = get_settings()
    if settings.mail_transport == "outbox":
        return OutboxMailer(Path(settings.outbox_dir))
    return SesMailer(aws.client("ses"), settings.mail_from)


def enqueue_purge(workspace_id: str) -> None:
    aws.client("sqs").send_message(
        QueueUrl=get_settings().purge_queue_url, MessageBody=json.dumps({"workspaceId": workspace_id})
    )


@cache
def workspaces() -> WorkspaceService:
    from .repositories.workspaces import WorkspaceRepository
    from .services.workspaces import WorkspaceService

    settings = get_settings()
    repo = WorkspaceRepository(aws.dynamodb(), settings.main_table)
    return WorkspaceService(
        repo, users(), api_keys(), plan_of=plan_of, enqueue_purge=enqueue_purge, bucket=settings.content_bucket
    )


@cache
def key_admin() -> KeyAdminService:
    from .services.key_admin import KeyAdminService

    settings = get_settings()
    return KeyAdminService(
        workspaces(), api_keys(), plan_of, settings.default_key_rate_limit, portal_secret, idempotency=idempotency
    )


@cache
def credits() -> CreditService:
    from .repositories.ledger import LedgerRepository
    from .services.credits import CreditService

    settings = get_settings()
    return CreditService(
        LedgerRepository(aws.dynamodb(), settings.ledger_table),
        usd_cents_per_credit=settings.credit_usd_cents,
        hold_seconds=settings.hold_seconds,
    )


@cache
def idempotency() -> Idempotency:
    from .repositories.idempotency import IdempotencyRepository
    from .services.idempotency import Idempotency

    return Idempotency(IdempotencyRepository(aws.dynamodb(), get_settings().main_table))


@cache
def purge() -> PurgeService:
    from .repositories.purge import ObjectVersionsRepository, PurgeRepository
    from .repositories.workspaces import WorkspaceRepository
    from .services.purge import PurgeService

    settings = get_settings()
    return PurgeService(
        WorkspaceRepository(aws.dynamodb(), settings.main_table),
        PurgeRepository(aws.dynamodb(), settings.main_table),
        api_keys(),
        ObjectVersionsRepository(aws.s3(), settings.content_bucket),
    )


def reset() -> None:
    """Forget every cached setting, client, secret and service (tests, after changing the environment)."""
    global _secret, _media_secret  # noqa: PLW0603
    _secret = _media_secret = None
    for cached in (api_keys, key_authenticator, read_plane, users, identity, mailer, workspaces, key_admin,
                   idempotency, purge, credits, media, media_urls, chat_model, chat, get_settings, aws.client,
                   aws.bedrock_runtime):  # fmt: skip
        cached.cache_clear()


@snapstart.after_restore
def _forget_secrets() -> None:
    """Restored from a snapshot, the cached secrets' monotonic timestamps are meaningless: read them afresh."""
    global _secret, _media_secret  # noqa: PLW0603
    _secret = _media_secret = None


# Under SnapStart, init is paid once per version: the DynamoDB client (and boto3's import) that nearly
# every function needs goes into the snapshot. On-demand cold starts still create it on first use.
snapstart.prime(aws.dynamodb)
