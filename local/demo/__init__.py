"""Demo data for the local runner: two workspaces with their people, keys and credits, and agents published from the
bundles in ``examples/`` through the portal's API, as a user publishes them with ``workspace-client publish``.

- Through the production create paths, in the tables: users (``UserStore.create``, as sign-in), workspaces
  (``create_workspace``, as the portal: slug claim, the owner's counted membership and the default brand in one
  transaction), the extra member (``WorkspaceStore.put_member``: no endpoint invites yet), API keys
  (``key_record`` and ``ApiKeyStore.put``, as mint) and credits (``LedgerStore.grant``, as a top-up).
- Through the HTTP API, signed in as each owner (a magic link read from the runner's outbox): the workspace's
  own files (presigned POST uploads) and every agent, post, item and object of its bundles
  (``workspace_client.bundle.publish``, the command line's own code). Nothing the writer makes is inserted by hand.

``load_demo`` returns what a person needs to try the API: each workspace's id, owner and raw key (shown only here,
as at mint time) and its agents, the first being the one the demo page shows. The runner calls it only on an empty
state, once its APIs answer.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.brands.records import default_brand
from core.credits.store import LedgerStore
from core.identity.records import UserRecord
from core.identity.store import UserStore
from core.keys.admin import key_record
from core.keys.key_format import generate
from core.keys.store import ApiKeyStore
from core.platform.ids import iso, new_id
from core.platform.settings import PLAN_LIMITS
from core.workspaces.create import create_workspace
from core.workspaces.records import MembershipRecord
from core.workspaces.store import WorkspaceStore
from local.demo.bundles import ensure_media
from local.demo.signed_in import owner_portal, upload
from local.demo.specs import SPECS, Spec, brand_fields, bundle_dirs, workspace_files

__all__ = ["load_demo"]
DAY = 86_400


@dataclass
class Demo:
    """Where the demo goes: the tables (written directly), and the portal and its outbox (signed in through)."""

    db: Any
    main_table: str
    api_keys_table: str
    ledger_table: str
    portal_url: str
    outbox: Path
    progress: Callable[[str], None] = lambda line: None
    bundles: int = 0  # to publish, all workspaces together
    _published: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def user(self, person: tuple[str, str], plan: str, created: str, **fields: Any) -> UserRecord:
        email, name = person
        user = UserRecord(id=new_id("usr"), email=email, name=name, plan=plan, created_at=created, **fields)
        return UserStore(self.db, self.main_table).create(user)

    def workspace(self, spec: Spec, logo: bytes) -> dict[str, Any]:
        """The workspace, its people, key and credits in the tables; then its files and agents through the API."""
        created = iso_at(time.time() - 90 * DAY)
        owner = self.user(spec.owner, spec.plan, created)
        repo = WorkspaceStore(self.db, self.main_table)
        ws = create_workspace(
            repo, default_brand, owner.id, spec.name, PLAN_LIMITS[spec.plan].workspaces, slug=spec.slug, at=created,
            brand_fields=brand_fields(spec),
            workspace_fields={"logo_key": "assets/logo.png", "member_count": 2 if spec.member else 1},
        )  # fmt: skip
        if spec.member:
            member = self.user(spec.member, "free", created, active_workspace_id=ws.id)
            repo.put_member(MembershipRecord(id=new_id("mem"), workspace_id=ws.id, user_id=member.id, role="member",
                                             created_at=created))  # fmt: skip
        raw = generate()
        ApiKeyStore(self.db, self.api_keys_table).put(
            key_record(raw, ws.id, "Demo key", rate_limit=spec.rate_limit, created_at=iso_at(time.time() - 3600))
        )
        if spec.credits:
            LedgerStore(self.db, self.ledger_table).grant(owner.id, spec.credits, "topup", new_id("top"),
                                                               "Demo top-up")  # fmt: skip
        portal = owner_portal(self.portal_url, self.outbox, owner.email)
        if spec.store_conversations:
            portal.update_workspace(ws.id, store_conversations=True)
        for path, (body, content_type) in workspace_files(spec, ws.id, ws.default_brand_id, created, logo).items():
            upload(portal, ws.id, path, body, content_type)
        from workspace_client.bundle import publish  # the command line's code (clients/python), as users run it

        for bundle in bundle_dirs(spec):
            started = time.monotonic()
            plan = publish(portal, ws.id, bundle, progress=False)
            with self._lock:  # one line per bundle, whichever workspace's thread publishes it
                self._published.append(bundle.name)
                self.progress(f"  {len(self._published)}/{self.bundles} examples/{bundle.name} → {spec.name}: "
                              f"{plan.summary().split(': ', 1)[1]} in {time.monotonic() - started:.1f} s")  # fmt: skip
        slugs = {a.slug: a.id for a in portal.list_agents(ws.id).agents}
        agents = [{"id": slugs[_slug(bundle)], "slug": _slug(bundle)} for bundle in bundle_dirs(spec)]
        return {"id": ws.id, "name": spec.name, "ownerEmail": spec.owner[0], "key": raw, "agents": agents}


def _slug(bundle: Path) -> str:
    slug: str = json.loads((bundle / "agent.json").read_text())["slug"]
    return slug


def iso_at(epoch_seconds: float) -> str:
    return iso(datetime.fromtimestamp(epoch_seconds, UTC))


def load_demo(
    dynamodb: Any, *, main_table: str, api_keys_table: str, ledger_table: str, portal_url: str, outbox: Path,
    cache_dir: Path, progress: Callable[[str], None] = lambda line: None,
) -> list[dict[str, Any]]:  # fmt: skip
    """Seed the demo's workspaces (their bundles' media made first, into ``examples/``); JSON-ready summaries.
    ``progress(line)``: a line per bundle published, for a person watching."""
    bundles = [bundle for spec in SPECS for bundle in bundle_dirs(spec)]
    media = ensure_media(bundles, cache_dir)
    demo = Demo(dynamodb, main_table, api_keys_table, ledger_table, portal_url, outbox, progress, len(bundles))
    with ThreadPoolExecutor(max_workers=len(SPECS)) as pool:  # workspaces are independent: published side by side
        return list(pool.map(lambda spec: demo.workspace(spec, media.logos["logo.png"].data), SPECS))
