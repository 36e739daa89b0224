"""The demo's first workspace for the in-process benches: ``examples/northwind-barista`` written through the writer's
own stores (the transactions the authoring endpoints commit), with placeholder bytes for its media.

The runner publishes the bundle over HTTP (``local/demo``); in process there is no HTTP, and the benches measure
the read plane, so the data only has to have the demo's shape: 168 posts (a few drafts) with their filter
copies, items, documents and the objects they name. Every write goes through the same repository methods.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core.agents.records import AgentRecord
from core.agents.write_store import AgentStore
from core.brands.records import default_brand
from core.credits.store import LedgerStore
from core.identity.records import UserRecord
from core.identity.store import UserStore
from core.items.records import ItemRecord
from core.items.write_store import ItemStore
from core.keys.admin import key_record
from core.keys.key_format import generate
from core.keys.store import ApiKeyStore
from core.platform.ids import new_id, now_iso
from core.platform.transactions import Also
from core.posts.records import PostRecord
from core.posts.write_store import PostStore
from core.workflows.records import WorkflowRecord
from core.workspaces.create import create_workspace
from core.workspaces.store import WorkspaceStore
from stack.template import ROOT

BUNDLE = ROOT / "examples" / "northwind-barista"
PLACEHOLDER = {".jpg": (b"jpeg", "image/jpeg"), ".png": (b"png", "image/png"), ".mp4": (b"mp4", "video/mp4")}


def _read(name: str) -> Any:
    return json.loads((BUNDLE / name).read_text())


def _object(path: str) -> tuple[bytes, str]:
    """The file itself when the bundle has it (text, PDF), else a few placeholder bytes of its type."""
    if (BUNDLE / path).exists():
        return (BUNDLE / path).read_bytes(), "application/octet-stream"
    return PLACEHOLDER.get(Path(path).suffix, (b"file", "application/octet-stream"))


def seed_example(db: Any, s3: Any, *, main_table: str, api_keys_table: str, ledger_table: str, bucket: str) -> dict:
    now = now_iso()
    owner = UserStore(db, main_table).create(
        UserRecord(id=new_id("usr"), email="ava@northwind.example", name="Ava", plan="pro", created_at=now)
    )
    ws = create_workspace(WorkspaceStore(db, main_table), default_brand, owner.id, "Northwind Coffee", 5)
    raw = generate()
    ApiKeyStore(db, api_keys_table).put(key_record(raw, ws.id, "Bench key"))
    LedgerStore(db, ledger_table).grant(owner.id, 1_000_000, "topup", new_id("top"), "Bench credits")
    spec = _read("agent.json")
    workflow = WorkflowRecord(id=new_id("wf"), workspace_id=ws.id, name=spec["name"], created_at=now, updated_at=now,
                              suggestions_json=json.dumps(_read("suggestions.json")))  # fmt: skip
    agent = AgentRecord(id=new_id("prj"), workspace_id=ws.id, slug=spec["slug"], name=spec["name"],
                        brand_id=ws.default_brand_id, active_workflow_id=workflow.id,
                        wrap_json=json.dumps(_read("wrap.json")), site_json=json.dumps(_read("site.json")),
                        created_at=now, updated_at=now)  # fmt: skip
    AgentStore(db, main_table).create(agent, new_workflow=workflow, limit=25, also=Also())
    folder, named = f"workspaces/{ws.id}/projects/{agent.id}/", set()
    posts = PostStore(db, main_table)
    for entry in _read("posts.json"):
        fields = {k: v for k, v in entry.items() if k != "status"}
        post = PostRecord.model_validate(
            fields
            | {
                "id": new_id("post"),
                "agentId": agent.id,
                "updatedAt": now,
                "published": entry.get("status", "published") == "published",
            }
        )
        posts.create(ws.id, post, also=Also())
        named |= {post.key, post.poster, post.playable, *(page.key for page in post.pages)} - {""}
    items = ItemStore(db, main_table)
    for entry in _read("items.json"):
        body, content_type = _object(entry["file"])
        named.add(entry["file"])
        item = ItemRecord.model_validate({k: v for k, v in entry.items() if k != "file"} | {
            "id": new_id("item"), "agentId": agent.id, "r2Key": f"projects/{agent.id}/{entry['file']}",
            "mimeType": content_type, "size": len(body), "updatedAt": now,
        })  # fmt: skip
        items.create(ws.id, item, also=Also())
    for path in sorted(named):
        body, content_type = _object(path)
        s3.put_object(Bucket=bucket, Key=folder + path, Body=body, ContentType=content_type)
    return {"id": ws.id, "key": raw, "owner": owner.email, "agents": [{"id": agent.id, "slug": agent.slug}]}
