"""Per-container singletons: repositories and services wired to the configured tables.

Built on first use (never at import) and cached for the container's life. Tests swap
implementations by calling ``reset()`` after changing the environment, or by setting
``deps.<provider>``: providers reach each other through this package, so the swap holds.

- ``registry``: ``@per_container`` and the list of caches ``reset()`` empties
- ``secrets``: the signing secrets (Secrets Manager), re-read every five minutes
- ``brain``, ``portal``: the providers of each plane (read plane, management plane); ``shared``: both planes'
  (keys, billing); ``authoring``: the writer's (management plane)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core import aws
from core.deps import registry
from core.deps.brain import chat, chat_model, key_authenticator, media, media_urls, read_plane
from core.deps.portal import (
    credits,
    enqueue_purge,
    idempotency,
    identity,
    key_admin,
    mailer,
    plan_of,
    purge,
    purge_queue,
    users,
    workspaces,
)
from core.deps.registry import per_container
from core.deps.secrets import SECRET_MAX_AGE, SECRETS, media_url_secret, portal_secret
from core.deps.shared import api_keys, billing
from core.lambda_runtime import snapstart
from core.settings import get_settings

__all__ = [
    "SECRET_MAX_AGE",
    "agents",
    "api_keys",
    "authoring_access",
    "billing",
    "brands",
    "chat",
    "chat_model",
    "credits",
    "enqueue_purge",
    "idempotency",
    "identity",
    "items",
    "key_admin",
    "key_authenticator",
    "mailer",
    "media",
    "media_url_secret",
    "media_urls",
    "objects",
    "per_container",
    "plan_of",
    "portal_secret",
    "posts",
    "purge",
    "purge_queue",
    "read_plane",
    "reset",
    "uploads",
    "users",
    "workflows",
    "workspace_settings",
    "workspaces",
    "writes",
]  # fmt: skip

# The writer's providers are loaded on first use (PEP 562), so no read-plane function imports the writer's modules
# (tests/unit/test_cold_path.py); the type checker sees them as plain imports.
WRITER = ("agents", "authoring_access", "brands", "items", "objects", "posts", "uploads", "workflows",
          "workspace_settings", "writes")  # fmt: skip
if TYPE_CHECKING:
    from core.deps.authoring import (
        agents,
        authoring_access,
        brands,
        items,
        objects,
        posts,
        uploads,
        workflows,
        workspace_settings,
        writes,
    )


def __getattr__(name: str) -> Any:
    if name in WRITER:
        from core.deps import authoring

        provider = globals()[name] = getattr(authoring, name)  # found here from now on: a test's swap holds
        return provider
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Caches kept below this package: the settings and the AWS clients are per-container too.
for _cached in (get_settings, aws.client, aws.bedrock_runtime):
    registry.track(_cached)


def reset() -> None:
    """Forget every cached setting, client, secret and service (tests, after changing the environment)."""
    registry.clear_all()


@snapstart.after_restore
def _forget_secrets() -> None:
    """Restored from a snapshot, the cached secrets' monotonic timestamps are meaningless: read them afresh."""
    for secret in SECRETS:
        secret.cache_clear()


# Under SnapStart, init is paid once per version: the DynamoDB client (and boto3's import) that nearly
# every function needs goes into the snapshot. On-demand cold starts still create it on first use.
snapstart.prime(aws.dynamodb)
