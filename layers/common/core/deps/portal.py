"""Management-plane (portal) providers: sign-in, workspaces, keys, credits, the purge (the writer's are in
``authoring``, those both planes use in ``shared``).

One provider reaches another through the package (``deps.users()``, ``deps.mailer``), not this module's own
name, so a test that swaps ``deps.<provider>`` swaps it for every provider built after.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from core import aws, deps
from core.deps.registry import per_container
from core.deps.secrets import portal_secret
from core.settings import PlanLimits, get_settings

if TYPE_CHECKING:  # each accessor imports what it builds: a function loads the services it uses, no others
    from core.mail import Mailer
    from core.repositories.purge_queue import PurgeQueue
    from core.repositories.users import UserRepository
    from core.services.credits import CreditService
    from core.services.idempotency import Idempotency
    from core.services.identity import IdentityService
    from core.services.key_admin import KeyAdminService
    from core.services.purge import PurgeService
    from core.services.workspaces import WorkspaceService


def plan_of(plan: str) -> PlanLimits:
    plans = get_settings().plans
    return plans.get(plan, plans["free"])


@per_container
def users() -> UserRepository:
    from core.repositories.users import UserRepository

    return UserRepository(aws.dynamodb(), get_settings().main_table)


@per_container
def identity() -> IdentityService:
    from core.auth.oidc import JwksCache
    from core.repositories.rate_limits import RateLimitRepository
    from core.services.identity import IdentityService
    from core.services.rate_limit import SlidingWindowLimiter
    from core.services.sign_in_mail import MailLimits

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
        deps.users(), deps.mailer, portal_secret, jwks.__getitem__, settings.client_ids,
        portal_app_url=settings.portal_app_url, magic_link_seconds=settings.magic_link_minutes * 60,
        session_seconds=settings.session_days * 86400,
        mail_limiter=SlidingWindowLimiter(RateLimitRepository(aws.dynamodb(), settings.rate_limits_table)),
        mail_limits=limits, default_plan=settings.default_plan,
    )  # fmt: skip


@per_container
def mailer() -> Mailer:
    from core.mail import OutboxMailer, SesMailer

    settings = get_settings()
    if settings.mail_transport == "outbox":
        return OutboxMailer(Path(settings.outbox_dir))
    return SesMailer(aws.client("ses"), settings.mail_from)


@per_container
def purge_queue() -> PurgeQueue:
    from core.repositories.purge_queue import PurgeQueue

    return PurgeQueue(aws.client("sqs"), get_settings().purge_queue_url)


def enqueue_purge(workspace_id: str, agent_id: str | None = None, *, delay_seconds: int = 0) -> None:
    """Queue the purge of a deleted workspace, or of one deleted agent of it (``delay_seconds``: not before)."""
    deps.purge_queue().send(workspace_id, agent_id, delay_seconds=delay_seconds)


@per_container
def workspaces() -> WorkspaceService:
    from core.repositories.workspaces import WorkspaceRepository
    from core.services.workspaces import WorkspaceService

    settings = get_settings()
    repo = WorkspaceRepository(aws.dynamodb(), settings.main_table)
    return WorkspaceService(
        repo, deps.users(), deps.api_keys(), plan_of=deps.plan_of, enqueue_purge=deps.enqueue_purge,
        bucket=settings.content_bucket, idempotency=deps.idempotency,
    )  # fmt: skip


@per_container
def key_admin() -> KeyAdminService:
    from core.services.key_admin import KeyAdminService

    settings = get_settings()
    return KeyAdminService(
        deps.workspaces(), deps.api_keys(), deps.plan_of, settings.default_key_rate_limit, portal_secret,
        idempotency=deps.idempotency,
    )  # fmt: skip


@per_container
def credits() -> CreditService:
    """The caller's balance and history (and, beneath them, the billing cycle of ``deps.billing()``)."""
    from core.repositories.ledger import LedgerRepository
    from core.services.credits import CreditService

    settings = get_settings()
    return CreditService(
        LedgerRepository(aws.dynamodb(), settings.ledger_table),
        usd_cents_per_credit=settings.credit_usd_cents,
        hold_seconds=settings.hold_seconds,
    )


@per_container
def idempotency() -> Idempotency:
    from core.repositories.idempotency import IdempotencyRepository
    from core.services.idempotency import Idempotency

    return Idempotency(IdempotencyRepository(aws.dynamodb(), get_settings().main_table))


@per_container
def purge() -> PurgeService:
    from core.repositories.purge import ObjectVersionsRepository, PurgeRepository
    from core.repositories.workspaces import WorkspaceRepository
    from core.services.purge import PurgeService

    settings = get_settings()
    return PurgeService(
        WorkspaceRepository(aws.dynamodb(), settings.main_table),
        PurgeRepository(aws.dynamodb(), settings.main_table),
        deps.api_keys(),
        ObjectVersionsRepository(aws.s3(), settings.content_bucket),
        settle_seconds=settings.purge_settle_seconds,
    )
