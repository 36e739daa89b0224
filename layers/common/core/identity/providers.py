"""The identity's providers: users, the session check, the sign-in service, the mailer of magic links."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from core.platform import aws
from core.platform.providers import per_container, portal_secret
from core.platform.settings import get_settings

if TYPE_CHECKING:  # each provider imports what it builds: a function loads the modules it uses, no others
    from core.identity.app_url_store import AppUrl
    from core.identity.mail import Mailer
    from core.identity.sessions import SessionCheck
    from core.identity.sign_in import IdentityService
    from core.identity.store import UserStore


@per_container
def users() -> UserStore:
    from core.identity.store import UserStore

    return UserStore(aws.dynamodb(), get_settings().main_table)


@per_container
def sessions() -> SessionCheck:
    """Every authenticated portal request's check of its JWT and session."""
    from core.identity.sessions import SessionCheck

    return SessionCheck(users(), portal_secret)


@per_container
def sign_in() -> IdentityService:
    from core.identity.mail_limits import MailLimits
    from core.identity.oidc import JwksCache
    from core.identity.sign_in import IdentityService
    from core.platform.rate_limit import SlidingWindowLimiter
    from core.platform.rate_limit_store import RateLimitStore

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
        portal_app_url=app_url(), magic_link_seconds=settings.magic_link_minutes * 60,
        session_seconds=settings.session_days * 86400,
        mail_limiter=SlidingWindowLimiter(RateLimitStore(aws.dynamodb(), settings.rate_limits_table)),
        mail_limits=limits, default_plan=settings.default_plan,
    )  # fmt: skip


@per_container
def app_url() -> AppUrl:
    """The console's address for mail links, resolved when a mail is sent (never when a service is built)."""
    from core.identity.app_url_store import AppUrl

    settings = get_settings()
    return AppUrl(settings.portal_app_url, settings.portal_app_url_parameter)


@per_container
def mailer() -> Mailer:
    from core.identity.mail import OutboxMailer, SesMailer

    settings = get_settings()
    if settings.mail_transport == "outbox":
        return OutboxMailer(Path(settings.outbox_dir))
    return SesMailer(aws.client("ses"), settings.mail_from)
