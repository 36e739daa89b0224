"""Writing an agent back as a bundle: agent.json, its documents, every post (drafts too), every item (inactive
too) and every file of its folder, downloaded through presigned GETs a few at a time under one bar.

Entries are written in the form publish reads, leaving out what is a default (an empty caption, a published
status), so that publishing the export changes nothing. An object no bundle could hold (a name starting with
``.``, one of the bundle's own documents at the folder's root, an extension the service takes no upload of) is
skipped with a warning; the export is loaded back at the end, so one a post still names is reported.
"""

from __future__ import annotations

import hashlib
import json
import logging
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from .._generated.models_portal import AgentItem, Post, StoredObject
from ..download import MD5_ETAG
from ..errors import ClientError, DownloadIntegrityError, TransportError
from ..portal import Portal
from .files import BundleError, content_type, uploaded
from .format import load_bundle
from .parallel import run_all
from .state import AgentState, folder, read_state
from .upload import S3_TIMEOUT, progress_bar

logger = logging.getLogger("workspace_client.bundle")
CHUNK = 256 * 1024


def export(portal: Portal, workspace_id: str, agent_slug: str, target_dir: Path, *, progress: bool = True) -> Path:
    """The agent ``agent_slug`` of the workspace as a bundle in ``target_dir`` (created; it must be empty)."""
    target = Path(target_dir)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise BundleError(f"{target}: not an empty folder (an export writes a whole bundle)")
    state = read_state(portal, workspace_id, agent_slug)
    if state.agent is None:
        raise BundleError(f"no agent {agent_slug} in workspace {workspace_id}")
    target.mkdir(parents=True, exist_ok=True)
    for name, document in _documents(state).items():
        if document is not None:
            (target / name).write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    files = {path: stored for path, stored in state.objects.items() if _kept(path)}
    total = sum(stored.size for stored in files.values())
    with httpx.Client(timeout=S3_TIMEOUT) as http, progress_bar(total, progress=progress, desc="download") as bar:
        download = partial(_download, portal, http, workspace_id, target=target, bar=bar)
        run_all([partial(download, path=path, stored=stored) for path, stored in files.items()])
    load_bundle(target)  # what publish would refuse is said now, not at the next publish
    return target


def _documents(state: AgentState) -> dict[str, Any]:
    assert state.agent is not None
    # The workspace's default brand is left unnamed, as a bundle says it: the export then publishes to another
    # workspace too (its default brand), and to this one unchanged.
    brand = next((b.slug for b in state.brands if b.id == state.agent.brand_id and not b.is_default), None)
    agent = {"slug": state.agent.slug, "name": state.agent.name} | ({"brand": brand} if brand else {})
    ordered = sorted(state.posts, key=lambda post: (post.created_at, post.id))
    items = sorted(state.items, key=lambda item: (item.folder, item.order, item.r2_key))
    return {
        "agent.json": agent,
        "wrap.json": state.wrap,
        "site.json": state.site,
        "suggestions.json": state.suggestions,
        "posts.json": [post_entry(post) for post in ordered] or None,
        "items.json": [item_entry(item, folder(state.agent.id)) for item in items] or None,
    }


def post_entry(post: Post) -> dict[str, Any]:
    entry: dict[str, Any] = {"createdAt": post.created_at, "kind": post.kind, "key": post.key}
    for name, value in (("title", post.title), ("sub", post.sub), ("caption", post.caption),
                        ("hashtags", post.hashtags), ("channels", post.channels), ("category", post.category),
                        ("width", post.width), ("height", post.height), ("poster", post.poster),
                        ("playable", post.playable)):  # fmt: skip
        if value not in (None, "", []):
            entry[name] = value
    if post.pages:
        entry["pages"] = [page.model_dump(by_alias=True, exclude_none=True, include={"key", "media_type", "width",
                          "height", "order"}) for page in post.pages]  # fmt: skip
    if post.status == "draft":
        entry["status"] = "draft"
    return entry


def item_entry(item: AgentItem, prefix: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": item.name, "kind": item.kind, "file": item.r2_key.removeprefix(prefix)}
    defaults = {"folder": "", "order": 0, "origin": "upload", "active": True}
    return entry | {name: getattr(item, name) for name, default in defaults.items() if getattr(item, name) != default}


def _kept(path: str) -> bool:
    """Whether a bundle can hold the object (else it is skipped, with a warning)."""
    segments = path.split("/")
    if not uploaded(path) or any(segment in ("", ".", "..") for segment in segments) or content_type(path) is None:
        logger.warning("skipped %s: a bundle cannot hold it (a hidden or reserved name, or no upload type)", path)
        return False
    return True


def _download(
    portal: Portal, http: httpx.Client, workspace_id: str, *, path: str, stored: StoredObject, target: Path, bar: Any
) -> None:
    """One object through its presigned GET, to ``<path>.part`` and then ``<path>`` once its MD5 is checked."""
    url = portal.download_object(workspace_id, stored.path).url
    destination = target.joinpath(*path.split("/"))
    destination.parent.mkdir(parents=True, exist_ok=True)
    part = destination.with_name(destination.name + ".part")
    digest, size = hashlib.md5(usedforsecurity=False), 0
    try:
        with http.stream("GET", url) as answer, part.open("wb") as out:
            if answer.status_code != 200:
                raise ClientError(f"download of {path}: storage answered {answer.status_code}")
            for chunk in answer.iter_bytes(CHUNK):
                out.write(chunk)
                digest.update(chunk)
                size += len(chunk)
                bar.update(len(chunk))
    except httpx.TransportError as error:
        raise TransportError(f"download of {path}: {error}") from error
    single_part = MD5_ETAG.fullmatch(stored.etag)
    if size != stored.size or (single_part and single_part.group(1).lower() != digest.hexdigest()):
        part.unlink()
        raise DownloadIntegrityError(f"{path}: downloaded {size} bytes that do not match the object's size or MD5")
    part.replace(destination)
