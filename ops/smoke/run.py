"""One smoke run: set up, check both planes, and remove everything, whatever failed (``try``/``finally``).

Order matters only where a check needs what an earlier one made: the operator's user and session, the JWT, the
workspace, the key and the agent are ``step``s (a failure stops the checks, never the cleanup); every other check
runs and reports on its own.
"""

from __future__ import annotations

import time
from typing import TextIO

from . import brain_checks, portal_checks
from .checks import Aborted, Checks, expect
from .cleanup import clean_up, leftovers
from .context import Smoke
from .operator import Footprint, create_user, grant, new_footprint
from .target import Target


def smoke(target: Target, *, out: TextIO | None = None) -> tuple[Checks, Footprint]:
    """Run every check against ``target``; the results (``checks.failed``) and what the run created."""
    checks, footprint = Checks(out=out), new_footprint()
    started = time.perf_counter()
    print(f"smoke against {target.name}: portal {target.portal_url}, brain {target.brain_url}", file=out, flush=True)
    run = Smoke.open(target, footprint, checks)
    try:
        _check(run)
    except Aborted as aborted:
        print(f"       (stopped after the failed step {aborted}: the checks after it need it)", file=out, flush=True)
    finally:
        try:
            _finish(run)
        finally:
            run.close()
    seconds = time.perf_counter() - started
    print(f"smoke: {len(checks.results) - len(checks.failed)}/{len(checks.results)} checks ok in {seconds:.1f} s",
          file=out, flush=True)  # fmt: skip
    return checks, footprint


def _check(run: Smoke) -> None:
    checks, target, footprint = run.checks, run.target, run.footprint
    run.cookie = checks.step("operator: temporary user (plan pro) and session", lambda: create_user(target, footprint))
    checks.step("operator: grant credits (ledger top-up)", lambda: grant(target, footprint, portal_checks.CREDITS))
    checks.step("portal POST /api/auth/api-token (the operator's session)", lambda: portal_checks.sign_in(run))
    checks.run("portal POST /api/auth/refresh", lambda: portal_checks.refresh(run))
    checks.run("portal GET /api/user/account", lambda: portal_checks.account(run))
    checks.step("portal POST /api/workspaces", lambda: portal_checks.create_workspace(run))
    run.key_id, run.key = checks.step("portal POST …/keys (mint)", lambda: portal_checks.mint_key(run))
    checks.step("publish a bundle (workspace-client publish)", lambda: portal_checks.publish(run))
    portal_checks.reads(run)
    brain_checks.reads(run)
    brain_checks.r2(run)
    checks.run("brain POST /v1/media-urls, then the signed URL", lambda: brain_checks.media_url(run))
    credits = checks.run("brain POST …/chat (streamed NDJSON)", lambda: brain_checks.chat(run))
    if credits is not None:
        checks.run("chat billed to the owner", lambda: brain_checks.billed(run, credits, portal_checks.CREDITS))
    brain_checks.errors(run)
    portal_checks.errors(run)
    checks.run("portal DELETE …/keys/{id} (revoked at once)", lambda: portal_checks.revoke(run))


def _finish(run: Smoke) -> None:
    """The API's own deletions (checks of those endpoints), then the operator's cleanup and its proof."""
    checks, footprint = run.checks, run.footprint
    if footprint.workspace_id and run.jwt:
        checks.run("portal DELETE /api/workspaces/{id}", lambda: portal_checks.delete_workspace(run))
    if run.jwt:
        checks.run("portal POST /api/auth/logout (the session ends)", lambda: portal_checks.sign_out(run))
    checks.run("cleanup: remove everything the run created", lambda: _nothing_failed(clean_up(run.target, footprint)))
    checks.run("cleanup: nothing left", lambda: _nothing_failed(leftovers(run.target, footprint)))


def _nothing_failed(problems: list[str]) -> None:
    expect(not problems, "; ".join(problems))
