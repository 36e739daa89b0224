"""Writing an agent back as a bundle: agent.json, its documents, every post (drafts too), every item (inactive
too), the owner's answers and every file of its folder, downloaded through presigned GETs a few at a time under one bar.

Entries are written in the form publish reads, leaving out what is a default (an empty caption, a published
status), so that publishing the export changes nothing. An object no bundle could hold (a name starting with
``.``, one of the bundle's own documents at the folder's root, an extension the service takes no upload of) is
skipped with a warning, and so is one that cannot be written where it goes (``agent.json/x.txt``: a file of the
export is where its folder would be; a name the file system refuses or already holds); the export is loaded back
at the end, so one a post still names is reported.

The export is whole or absent: it is written into a hidden folder (beside the target, or in it when the target is
an existing empty folder, which so keeps its mode, owner and mount) and moved into place once every file is
downloaded and checked. One that fails (a refused download, a full disk, Ctrl-C) leaves the target as it was.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import secrets
import shutil
import threading
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from .._generated.models_portal import AgentItem, Brand, Post, StoredObject
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
    there = target.exists()
    target.parent.mkdir(parents=True, exist_ok=True)
    # Hidden: no object is written under such a name, and a publish of the target never reads one.
    token = secrets.token_hex(4)
    staging = target / f".export-{token}" if there else target.with_name(f".{target.name}.export-{token}")
    staging.mkdir()
    try:
        _write(portal, workspace_id, state, staging, progress=progress)
        if there:  # the few entries of the export's root, each renamed on the same file system at once
            for entry in staging.iterdir():
                entry.rename(target / entry.name)
            staging.rmdir()
        else:
            staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    load_bundle(target)  # what publish would refuse is said now, not at the next publish
    return target


def _write(portal: Portal, workspace_id: str, state: AgentState, root: Path, *, progress: bool) -> None:
    """The documents, then every object that can be a file of the bundle at ``root``."""
    documents = {name: document for name, document in _documents(state).items() if document is not None}
    for name, document in documents.items():
        (root / name).write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    kept = {path: stored for path, stored in state.objects.items() if _kept(path)}
    files = _placeable(kept, written=set(documents) | set(kept))
    total = sum(stored.size for stored in files.values())
    placing = threading.Lock()
    with httpx.Client(timeout=S3_TIMEOUT) as http, progress_bar(total, progress=progress, desc="download") as bar:
        download = partial(_download, portal, http, workspace_id, root=root, bar=bar, placing=placing)
        # Each object downloads to a hidden part of its own: no two share one, whatever their names.
        run_all([partial(download, path=path, stored=stored, part=root / f".{n}.part")
                 for n, (path, stored) in enumerate(files.items())])  # fmt: skip


def _documents(state: AgentState) -> dict[str, Any]:
    assert state.agent is not None
    # The agent's brand goes with it, whole: published to another workspace, the export is the same brand there (made
    # if missing), not that workspace's default; published here, it changes nothing.
    brand = next((b for b in state.brands if b.id == state.agent.brand_id), None)
    agent = {"slug": state.agent.slug, "name": state.agent.name} | ({"brand": brand_entry(brand)} if brand else {})
    # Its behaviour too, every field (defaults included): published elsewhere, the agent answers as this one does.
    # Only the fields this client knows: a newer service's would be refused by load_bundle.
    if (behaviour := getattr(state.agent, "behaviour", None)) is not None:
        known = set(type(behaviour).model_fields)
        agent["behaviour"] = behaviour.model_dump(mode="json", by_alias=True, include=known)
    ordered = sorted(state.posts, key=lambda post: (post.created_at, post.id))
    items = sorted(state.items, key=lambda item: (item.folder, item.order, item.r2_key))
    answers = sorted(state.answers, key=lambda answer: answer.id)  # oldest first (ids are ULIDs): made in this order
    return {
        "agent.json": agent,
        "wrap.json": state.wrap,
        "site.json": state.site,
        "suggestions.json": state.suggestions,
        "posts.json": [post_entry(post) for post in ordered] or None,
        "items.json": [item_entry(item, folder(state.agent.id)) for item in items] or None,
        "answers.json": [{"question": answer.question, "answer": answer.answer} for answer in answers] or None,
    }


def brand_entry(brand: Brand) -> dict[str, Any]:
    entry: dict[str, Any] = {"slug": brand.slug, "name": brand.name}
    if brand.palette:
        entry["palette"] = brand.palette
    if brand.font_family:
        entry["fontFamily"] = brand.font_family
    return entry


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


def _placeable(objects: dict[str, StoredObject], *, written: set[str]) -> dict[str, StoredObject]:
    """The objects but those under the name of a file the export writes (``agent.json/x.txt``, ``a.jpg/b.jpg``
    beside ``a.jpg``): a folder cannot be where a file is, so such an object is skipped with a warning."""
    placeable = {}
    for path, stored in objects.items():
        segments = path.split("/")
        prefixes = ("/".join(segments[:n]) for n in range(1, len(segments)))
        if taken := next((prefix for prefix in prefixes if prefix in written), None):
            logger.warning("skipped %s: %s is a file of the export, its folder cannot be there", path, taken)
        else:
            placeable[path] = stored
    return placeable


def _download(
    portal: Portal,
    http: httpx.Client,
    workspace_id: str,
    *,
    path: str,
    stored: StoredObject,
    part: Path,
    root: Path,
    bar: Any,
    placing: threading.Lock,
) -> None:
    """One object through its presigned GET, to ``part`` and then ``<root>/<path>`` once its MD5 is checked."""
    url = portal.download_object(workspace_id, stored.path).url
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
    _place(part, root.joinpath(*path.split("/")), path, placing)


def _place(part: Path, destination: Path, path: str, placing: threading.Lock) -> None:
    """Move a checked download to its path. One that cannot be written (a file where its folder would be, a name
    the file system refuses, or one it holds already: ``A.jpg`` beside ``a.jpg`` on a case-insensitive one) is
    skipped with a warning: one odd object does not cost the whole export."""
    with placing:  # one at a time, so that a path found free is still free when it is taken
        try:
            if destination.exists():
                raise FileExistsError(errno.EEXIST, "another object's file is there")
            destination.parent.mkdir(parents=True, exist_ok=True)
            part.replace(destination)
        except OSError as error:
            part.unlink(missing_ok=True)
            logger.warning("skipped %s: it cannot be written there (%s)", path, error.strerror or error)
