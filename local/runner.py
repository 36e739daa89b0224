"""Start everything: moto, the template's resources, the kept state (or demo data), and both APIs on localhost."""

from __future__ import annotations

import gc
import json
import logging
import os
import secrets
import shutil
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from local.aws.emulator import create_resources, forget_stream_records, route_object_events, start_moto
from local.aws.s3_post.policy import PostPolicyCheck
from local.aws.state.capture import StateCapture
from local.aws.state.restore import ACCOUNT, restore
from local.aws.state.store import StateStore
from local.console import DIST as CONSOLE_DIST
from local.console import ConsoleServer, origin_of, serve_console
from local.containers import package
from local.containers.pool import ContainerPool, PoolLimits
from local.demo.quiet import say, stderr_to
from local.gateway.api import ApiGateway
from local.gateway.http_server import drain_together, serve
from local.triggers.queues import QueuePoller
from local.triggers.schedules import Scheduler
from local.triggers.streams import StreamPoller
from stack.template import Stack, load

# The models a local run offers (the template's ChatModels in AWS): both offline, at two prices.
LOCAL_CHAT_MODELS = [
    {"id": "offline", "name": "Offline", "provider": "offline", "creditsPerTurn": 1, "default": True},
    {"id": "offline-plus", "name": "Offline Plus", "provider": "offline", "creditsPerTurn": 3},
]

logger = logging.getLogger("local.runner")
REGION = "us-east-1"
# Dummy credentials: moto accepts anything, and real AWS must never be reached from here.
AWS_ENV = {"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local", "AWS_DEFAULT_REGION": REGION}
DEMO_LOG = "demo-publish.log"  # in the state directory: the logs of a first start's demo publication
DOCUMENTS_WAIT = 60  # seconds a first start waits for the knowledge worker to read the demo's documents


@dataclass
class Runner:
    stack: Stack
    aws_endpoint: str
    portal_url: str
    brain_url: str
    page_url: str | None = None
    console_url: str | None = None
    console_built: bool = False
    workspaces: list[dict[str, Any]] = field(default_factory=list)
    _closers: list[Any] = field(default_factory=list)

    def about(self) -> dict[str, Any]:
        """``runner.json``: its moto endpoint and region, and its pid (tests count its processes)."""
        return {"awsEndpoint": self.aws_endpoint, "region": REGION, "pid": os.getpid()}

    def demo(self) -> dict[str, Any]:
        return {
            "portalUrl": self.portal_url,
            "brainUrl": self.brain_url,
            "pageUrl": self.page_url,
            "consoleUrl": self.console_url,
            "workspaces": self.workspaces,
        }

    def close(self) -> None:
        """Stop taking requests, let those in flight finish (bounded), then stop the rest; the journal last."""
        for close in reversed(self._closers):
            try:
                close()
            except Exception:  # one part failing to stop must not keep the journal open
                logger.exception("stopping %s failed", getattr(close, "__qualname__", close))


def _clients(endpoint: str) -> dict[str, Any]:
    import boto3

    session = boto3.session.Session(aws_access_key_id="local", aws_secret_access_key="local", region_name=REGION)  # noqa: S106
    services = ("dynamodb", "dynamodbstreams", "s3", "secretsmanager", "sqs", "events")
    return {name: session.client(name, endpoint_url=endpoint) for name in services}  # type: ignore[call-overload]


def _kept_secret(state_dir: Path, name: str) -> str:
    """A generated secret, kept in ``.local/`` so portal JWTs survive a restart of the runner."""
    path = state_dir / f"{name}.secret"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(48))
        path.chmod(0o600)
    return path.read_text().strip()


def _serve_demo_page(runner: Runner, host: str, port: int, dynamodb: Any, kept: Path) -> str:
    from local.demo.page import serve_page
    from local.demo.page_key import page_key

    workspace = runner.workspaces[0]
    keys_table = runner.stack.physical_name("ApiKeysTable")

    def key_for(origin: str) -> str:
        return page_key(dynamodb, keys_table, kept / "page-keys.json", workspace["id"], origin)

    server, url = serve_page(host, port, brain_url=runner.brain_url, key=key_for, agent_id=workspace["agents"][0]["id"])
    runner._closers.append(server.shutdown)
    return url


def _wire_console(runner: Runner, console: ConsoleServer, aws_endpoint: str) -> None:
    """The console proxies to the portal now answering; uploads go to moto (the page's CSP must allow it). It stops
    taking requests first on a stop (closers run in reverse), then the APIs drain what it had passed on."""
    console.portal_url = runner.portal_url
    console.upload_origin = origin_of(aws_endpoint)
    runner.console_url = console.url
    runner.console_built = (console.dist / "index.html").is_file()
    if not runner.console_built:
        logger.warning("console: %s is not built: run `make console` (the rest is served)", console.dist)

    def stop_console() -> None:
        console.shutdown()
        console.server_close()

    runner._closers.append(stop_console)


def _kept_demo(state: Path, seed: bool, load_demo_data: Any) -> list[dict[str, Any]]:
    """The demo workspaces: seeded only into an empty state, then kept (raw keys included) beside it."""
    kept = state / "demo-workspaces.json"
    if seed:
        workspaces = load_demo_data()
        kept.write_text(json.dumps(workspaces, indent=2) + "\n")
        kept.chmod(0o600)
        return workspaces
    if kept.exists():
        return json.loads(kept.read_text())
    return []


def start(
    state_dir: Path,
    *,
    host: str = "127.0.0.1",
    portal_port: int = 3000,
    brain_port: int = 3001,
    demo: bool = True,
    media_cache: Path | None = None,
    function_env: dict[str, str] | None = None,
    fresh: bool = False,
    limits: PoolLimits | None = None,
    page_port: int | None = 0,
    built: Path | None = None,
    console_port: int | None = 0,
    console_dist: Path | None = None,
) -> Runner:
    """Start the runner on ``state_dir``: what it kept is loaded back (``fresh`` starts clean).

    ``page_port``: where the demo brand page is served (0: a free port; None: no page). ``built``: run the functions
    and the layer ``sam build`` made in that folder, by the bare interpreter (``local.containers.package``), not the
    source tree. ``console_port``: where the owner's console (console/dist, or ``console_dist``) is served, with
    ``/api/*`` proxied to the portal (0: a free port; None: no console); the functions' mail links then open it.
    """
    state_dir.mkdir(parents=True, exist_ok=True)
    if fresh:
        shutil.rmtree(state_dir / "state", ignore_errors=True)
    stack = Stack(load(), region=REGION)

    # AWS: moto with the template's resources, then the kept state replayed into it and compacted.
    store = StateStore(state_dir / "state")
    buckets = {stack.physical_name(name) for name in stack.of_type("AWS::S3::Bucket")}
    capture = StateCapture(store, buckets, REGION)
    # Outermost, a browser-based upload is checked as S3 checks it: a refused one reaches neither journal nor moto.
    moto, endpoint = start_moto(host, middleware=lambda app: PostPolicyCheck(capture(app)))
    clients = _clients(endpoint)
    dynamodb, s3 = clients["dynamodb"], clients["s3"]
    generated = {name: _kept_secret(state_dir, name) for name in stack.of_type("AWS::SecretsManager::Secret")}
    create_resources(
        stack, dynamodb, s3, secrets=clients["secretsmanager"], sqs=clients["sqs"], secret_values=generated
    )
    saved = store.load()
    restore(moto.app, saved, store, REGION)
    forget_stream_records(ACCOUNT, REGION)  # the replay is no news: the streams' consumers start after it
    route_object_events(stack, s3, clients["sqs"], clients["events"])
    store.begin(*capture.current())
    capture.recording = True
    # The restored state (the demo's thousands of items) lives as long as the runner: kept out of the collector's
    # sight, which otherwise walked all of it at every full collection while requests were served.
    gc.collect()
    gc.freeze()
    logger.info("state: %s (generation %d, %s)", store.directory, store.generation, "empty" if saved.empty else "kept")

    # The console's port is bound before the functions start: their PORTAL_APP_URL names it, so the sign-in and
    # invitation links in the outbox open the console (a caller's function_env may still set another).
    console = serve_console(host, console_port, console_dist or CONSOLE_DIST) if console_port is not None else None
    console_env = {"PORTAL_APP_URL": console.url} if console else {}

    # Functions and the two APIs.
    base_env = AWS_ENV | {"AWS_ENDPOINT_URL": endpoint, "AWS_MAX_ATTEMPTS": "2"}
    # What differs from AWS: mail goes to files, cookies work over plain http, chat answers offline, on two offline
    # models at two prices (LOCAL_CHAT_MODELS), so that per-model billing is seen and tested.
    local_env = (
        console_env
        | {
            "MAIL_TRANSPORT": "outbox",
            "OUTBOX_DIR": str(state_dir / "outbox"),
            "COOKIE_SECURE": "false",
            # Webhooks may be sent to a receiver on this machine over http (the template's default refuses both).
            "WEBHOOK_ALLOW_LOCAL": "true",
            "CHAT_MODEL": "offline",
            "CHAT_MODELS": json.dumps(LOCAL_CHAT_MODELS, separators=(",", ":")),
        }
        | (function_env or {})
    )
    code = package.built(stack, built, state_dir) if built else package.source_tree(stack)
    pool = ContainerPool(code.functions, code.layers, base_env, overrides=local_env, limits=limits, python=code.python)
    queues = QueuePoller(stack, pool, clients["sqs"]).start()
    schedules = Scheduler(stack, pool).start()
    streams = StreamPoller(stack, pool, clients["dynamodbstreams"]).start()
    portal = serve(ApiGateway(stack, "PortalApi", pool), host, portal_port)
    brain = serve(ApiGateway(stack, "BrainApi", pool), host, brain_port)
    runner = Runner(
        stack=stack,
        aws_endpoint=endpoint,
        portal_url=f"http://{host}:{portal.server_address[1]}",
        brain_url=f"http://{host}:{brain.server_address[1]}",
        # Closed in reverse: the APIs stop taking requests and drain, then the rest; the journal last.
        _closers=[
            store.close,
            moto.stop,
            pool.close,
            queues.close,
            streams.close,
            schedules.close,
            partial(drain_together, [portal, brain]),
        ],
    )
    if console:
        _wire_console(runner, console, endpoint)

    # Demo data: seeded into an empty state only, so a restart shows the same ids and keys. Its agents are published
    # through the portal that now answers, signed in with the outbox's mail, as a user publishes a bundle.
    # Its thousands of request logs go to a file: a person reads a line per bundle, then the summary
    # (local/demo/quiet.py).
    def seed() -> list[dict[str, Any]]:
        from local.demo import load_demo

        log, started = state_dir / DEMO_LOG, time.monotonic()
        say(f"first start: publishing the demo from examples/ (its request logs: {log})")
        with stderr_to(log):
            workspaces = load_demo(
                dynamodb,
                main_table=stack.physical_name("MainTable"),
                api_keys_table=stack.physical_name("ApiKeysTable"),
                ledger_table=stack.physical_name("LedgerTable"),
                portal_url=runner.portal_url,
                outbox=Path(local_env["OUTBOX_DIR"]),
                cache_dir=media_cache or state_dir / "media-cache",
                progress=say,
            )
            # The knowledge worker reads the documents the demo published: its logs are the demo's too.
            read = queues.settled(DOCUMENTS_WAIT)
        pool.retire()  # containers started above write to the log file: later requests get new ones
        documents = "its documents read" if read else f"its documents still being read after {DOCUMENTS_WAIT} s"
        say(f"demo published in {time.monotonic() - started:.0f} s, {documents}")
        return workspaces

    runner.workspaces = _kept_demo(store.directory, demo and saved.empty, seed)

    # The demo brand page, on an origin of its own, embedding a key restricted to that origin.
    if page_port is not None and runner.workspaces:
        runner.page_url = _serve_demo_page(runner, host, page_port, dynamodb, store.directory)
    return runner
