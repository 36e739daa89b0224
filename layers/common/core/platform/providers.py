"""The platform's per-container providers, and ``reset()``, which forgets every one of every package.

Each resource package has a ``providers`` module of the same shape: one ``@per_container`` function per
service or store, built on first use (never at import) and kept for the container's life. A provider
reaches another package's through that module (``workspaces.access()``), imported inside the function,
so a test that swaps ``<package>.providers.<name>`` swaps it for every provider built after, and a
function loads only the packages its endpoint uses. Providers never import each other in a circle
(tests/unit/test_architecture.py): where two packages' providers would, one builds the other's store itself
(``workspaces.service()`` its ``ApiKeyStore``). Importing any ``providers`` module imports this one, so the caches
below and the SnapStart hooks are always registered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.platform import aws, registry
from core.platform.lambda_runtime import snapstart
from core.platform.registry import per_container
from core.platform.secrets import SECRET_MAX_AGE, SECRETS, media_url_secret, portal_secret
from core.platform.settings import get_settings

if TYPE_CHECKING:
    from core.platform.idempotency import Idempotency

__all__ = ["SECRET_MAX_AGE", "idempotency", "media_url_secret", "per_container", "portal_secret", "reset"]

# Caches kept outside any provider: the settings and the AWS clients are per-container too.
for _cached in (get_settings, aws.client, aws.bedrock_runtime):
    registry.track(_cached)


def reset() -> None:
    """Forget every cached setting, client, secret and service (tests, after changing the environment)."""
    registry.clear_all()


@per_container
def idempotency() -> Idempotency:
    from core.platform.idempotency import Idempotency
    from core.platform.idempotency_store import IdempotencyStore

    return Idempotency(IdempotencyStore(aws.dynamodb(), get_settings().main_table))


@snapstart.after_restore
def _forget_secrets() -> None:
    """Restored from a snapshot, the cached secrets' monotonic timestamps are meaningless: read them afresh."""
    for secret in SECRETS:
        secret.cache_clear()


# Under SnapStart, init is paid once per version: the DynamoDB client (and boto3's import) that nearly
# every function needs goes into the snapshot. On-demand cold starts still create it on first use.
snapstart.prime(aws.dynamodb)
