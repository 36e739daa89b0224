"""Publishing a bundle through the local runner: a new user's first publish, an unchanged re-publish, one change.

Starts ``python -m local`` on a fresh state, signs in a new user (the default plan) and creates a workspace, then
publishes ``examples/northwind-barista`` with the ``workspace-client`` code (``workspace_client.bundle.publish``,
presigned POSTs to the runner's S3) three times: into the empty workspace, again with nothing changed, and again
from a copy with one post's caption edited and one media file's bytes changed. Each run reports its wall time,
the plan's uploads, upload bytes and API writes, and the portal requests the client sent; the baseline is one
authenticated read (``GET /api/workspaces``) timed in the same run, so times read as multiples of a round trip.
Local figures (moto's server, emulated containers): compare changes with them, do not predict AWS latency.

    PYTHONPATH=layers/common:. .venv/bin/python bench/publish_bundle.py [--reads 20] [--json PATH]
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "common"), str(ROOT / "clients" / "python" / "src")]

from bench.benchkit import command, finish, parser, table  # noqa: E402
from local.demo.signed_in import owner_portal  # noqa: E402
from stack.process import running  # noqa: E402

BUNDLE = ROOT / "examples" / "northwind-barista"


def _counting(portal: Any, sent: list[str]) -> None:
    """Note every request the portal client sends (publish sends from worker threads: a list append is atomic)."""
    client: httpx.Client = portal._http  # the client's one httpx.Client
    client.event_hooks = {"request": [lambda request: sent.append(request.method)]}


def _edited_copy(into: Path) -> Path:
    """The bundle with the first post's caption edited and one media file's bytes changed."""
    copy = into / BUNDLE.name
    shutil.copytree(BUNDLE, copy)
    posts_file = copy / "posts.json"
    posts = json.loads(posts_file.read_text())
    posts[0]["caption"] += " (edited)"
    posts_file.write_text(json.dumps(posts, indent=2))
    media = copy / posts[0]["key"]
    media.write_bytes(media.read_bytes() + b"\0")  # another hash, same type
    return copy


def _publish(portal: Any, workspace_id: str, bundle: Path, sent: list[str]) -> dict[str, Any]:
    from workspace_client.bundle import publish

    sent.clear()
    start = time.perf_counter()
    plan = publish(portal, workspace_id, bundle, progress=False)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "uploads": plan.uploads, "bytes": plan.upload_bytes, "writes": plan.writes,
            "requests": len(sent), "changes": len(plan.changes)}  # fmt: skip


def main(argv: list[str] | None = None) -> dict[str, str]:
    cli = parser(__doc__)
    cli.add_argument("--reads", type=int, default=20, help="authenticated reads timed for the baseline")
    args = cli.parse_args(argv)
    state = Path(tempfile.mkdtemp(prefix="bench-publish-"))
    try:
        with running(state, fresh=True) as demo:
            portal = owner_portal(demo["portalUrl"], state / "outbox", "publisher@example.org")
            workspace_id = portal.create_workspace(name="Bench").workspace.id
            portal.list_workspaces()  # the read's container is warm before it is timed
            reads = []
            for _ in range(args.reads):
                start = time.perf_counter()
                portal.list_workspaces()
                reads.append(time.perf_counter() - start)
            baseline = statistics.median(reads)
            sent: list[str] = []
            _counting(portal, sent)
            runs = [("first publish, empty workspace", _publish(portal, workspace_id, BUNDLE, sent)),
                    ("again, nothing changed", _publish(portal, workspace_id, BUNDLE, sent))]  # fmt: skip
            edited = _edited_copy(state)
            runs.append(("one caption and one file changed", _publish(portal, workspace_id, edited, sent)))
            runs.append(("again, nothing changed", _publish(portal, workspace_id, edited, sent)))
    finally:
        shutil.rmtree(state, ignore_errors=True)
    rows = [[name, r["seconds"] * 1000, f"{r['seconds'] / baseline:.0f}\u00d7", r["changes"], r["uploads"],
             r["bytes"] // 1024, r["writes"], r["requests"]] for name, r in runs]  # fmt: skip
    markdown = (
        f"`examples/{BUNDLE.name}` published by a new user with `workspace_client.bundle.publish` over HTTP through "
        f"the local runner. Baseline: one authenticated portal read (`GET /api/workspaces`), median of {args.reads}: "
        f"**{baseline * 1000:.1f} ms**; time also as a multiple of it. Requests: portal API calls the client sent "
        f"(reads, signings, writes; the presigned POSTs to S3 not counted).\n\n"
        + table(["run", "ms", "\u00d7 read", "changes", "uploads", "KiB", "writes", "portal requests"], rows)
    )
    return finish(args, "Publishing a bundle (local runner)", command("publish_bundle.py", argv or []), markdown)


if __name__ == "__main__":
    main(sys.argv[1:])
