"""Start everything: moto, the template's resources, demo data, and both APIs on localhost."""

from __future__ import annotations

import json
import logging
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .containers import ContainerPool
from .emulator import create_resources, start_moto
from .gateway import ApiGateway, serve
from .queues import QueuePoller
from .schedules import Scheduler
from .template import Stack, load

logger = logging.getLogger("local.runner")
REGION = "us-east-1"
# Dummy credentials: moto accepts anything, and real AWS must never be reached from here.
AWS_ENV = {"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local", "AWS_DEFAULT_REGION": REGION}


@dataclass
class Runner:
    stack: Stack
    aws_endpoint: str
    portal_url: str
    brain_url: str
    workspaces: list[dict[str, Any]] = field(default_factory=list)
    _closers: list[Any] = field(default_factory=list)

    def demo(self) -> dict[str, Any]:
        return {"portalUrl": self.portal_url, "brainUrl": self.brain_url, "workspaces": self.workspaces}

    def close(self) -> None:
        for close in reversed(self._closers):
            close()


def _clients(endpoint: str) -> dict[str, Any]:
    import boto3

    session = boto3.session.Session(aws_access_key_id="local", aws_secret_access_key="local", region_name=REGION)  # noqa: S106
    return {name: session.client(name, endpoint_url=endpoint) for name in ("dynamodb", "s3", "secretsmanager", "sqs")}


def _kept_secret(state_dir: Path, name: str) -> str:
    """A generated secret, kept in ``.local/`` so portal JWTs survive a restart of the runner."""
    path = state_dir / f"{name}.secret"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(48))
        path.chmod(0o600)
    return path.read_text().strip()


def start(
    state_dir: Path,
    *,
    host: str = "127.0.0.1",
    portal_port: int = 3000,
    brain_port: int = 3001,
    demo: bool = True,
    media_cache: Path | None = None,
    function_env: dict[str, str] | None = None,
) -> Runner:
    state_dir.mkdir(parents=True, exist_ok=True)
    stack = Stack(load(), region=REGION)
    moto, endpoint = start_moto(host)
    clients = _clients(endpoint)
    dynamodb, s3 = clients["dynamodb"], clients["s3"]
    generated = {name: _kept_secret(state_dir, name) for name in stack.of_type("AWS::SecretsManager::Secret")}
    create_resources(
        stack, dynamodb, s3, secrets=clients["secretsmanager"], sqs=clients["sqs"], secret_values=generated
    )

    base_env = AWS_ENV | {"AWS_ENDPOINT_URL": endpoint, "AWS_MAX_ATTEMPTS": "2"}
    # What differs from AWS: mail goes to files, cookies work over plain http, chat answers offline.
    local_env = {
        "MAIL_TRANSPORT": "outbox",
        "OUTBOX_DIR": str(state_dir / "outbox"),
        "COOKIE_SECURE": "false",
        "CHAT_MODEL": "offline",
    } | (function_env or {})
    pool = ContainerPool(stack.functions(), [str(p) for p in stack.layer_dirs()], base_env, overrides=local_env)
    queues = QueuePoller(stack, pool, clients["sqs"]).start()
    schedules = Scheduler(stack, pool).start()
    portal = serve(ApiGateway(stack, "PortalApi", pool), host, portal_port)
    brain = serve(ApiGateway(stack, "BrainApi", pool), host, brain_port)
    runner = Runner(
        stack=stack,
        aws_endpoint=endpoint,
        portal_url=f"http://{host}:{portal.server_address[1]}",
        brain_url=f"http://{host}:{brain.server_address[1]}",
        _closers=[moto.stop, pool.close, queues.close, schedules.close, portal.shutdown, brain.shutdown],
    )
    if demo:
        from .demo import load_demo

        runner.workspaces = load_demo(
            dynamodb,
            s3,
            main_table=stack.physical_name("MainTable"),
            api_keys_table=stack.physical_name("ApiKeysTable"),
            ledger_table=stack.physical_name("LedgerTable"),
            bucket=stack.physical_name("ContentBucket"),
            cache_dir=media_cache or state_dir / "media-cache",
        )
    (state_dir / "demo.json").write_text(json.dumps(runner.demo(), indent=2) + "\n")
    (state_dir / "runner.json").write_text(json.dumps({"awsEndpoint": endpoint, "region": REGION}, indent=2) + "\n")
    return runner
