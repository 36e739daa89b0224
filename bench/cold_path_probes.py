"""The cold path bench's probes: the programs a fresh interpreter runs and times, and how they are run.

Split from bench/cold_path.py (which finds each function's handler, services and clients, and reports): the
probe sources are the measured code itself, kept together so the function's, the floor's and the monolith's
stay comparable at a glance.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass

from bench.benchkit import ROOT

FUNCTION_PROBE = """
import importlib, sys, time
sys.path[:0] = [{code!r}, {layer!r}]
start = time.process_time()
{runtime}import {module}
from core.platform import aws, settings
for accessor in {accessors!r}:
    provider, _, name = accessor.partition(":")
    getattr(importlib.import_module(provider), name)()
for service in {services!r}:
    aws.bedrock_runtime() if service == "bedrock-runtime" else aws.client(service)
{secret}settings.get_settings()
print((time.process_time() - start) * 1000)
"""
# A deployed function that may read a secret reads it through the secrets extension (core.platform.secrets): one GET
# to localhost, answered by the bench's stand-in (stand_in_extension), in place of a Secrets Manager client.
SECRET_PROBE_LINES = "from core.platform.secrets import read_secret\nread_secret('bench/secret')\n"  # noqa: S105 - code, no secret
# The same cold path in stages, the floor's first, for where the time goes (the stages' order decides which
# stage pays for a module two of them import; settings are part of "our code").
STAGED_PROBE = """
import importlib, json, sys, time
sys.path[:0] = [{code!r}, {layer!r}]
stages, last = [], time.process_time()
def stage(name):
    global last
    now = time.process_time()
    stages.append((name, (now - last) * 1000))
    last = now
import boto3
from core.platform import aws
aws.client("dynamodb")
stage("floor: import boto3 + DynamoDB client")
from pydantic import BaseModel, Field
class FirstModel(BaseModel):  # a model's first schema loads pydantic's schema machinery
    count: int = Field(1, ge=1)
stage("pydantic: import, the first model's schema")
import aws_lambda_powertools, core.platform.observability
stage("Powertools: Logger, metrics")
{runtime}import {module}
from core.platform import settings
for accessor in {accessors!r}:
    provider, _, name = accessor.partition(":")
    getattr(importlib.import_module(provider), name)()
settings.get_settings()
stage("our code: handler, REST resolver, services, models, settings")
for service in {services!r}:
    aws.bedrock_runtime() if service == "bedrock-runtime" else aws.client(service)
{secret}stage("the function's other clients (its secret through the extension)")
print(json.dumps(stages))
"""
FLOOR_PROBE = """
import time
start = time.process_time()
import boto3
boto3.client("dynamodb")
print((time.process_time() - start) * 1000)
"""
MONOLITH_PROBE = """
import time
start = time.process_time()
import boto3
from fastapi import FastAPI
from mangum import Mangum

app = FastAPI()


@app.get("/v1/ping")
def ping() -> dict[str, bool]:
    return {"ok": True}


handler = Mangum(app, lifespan="off")
boto3.client("dynamodb")
print((time.process_time() - start) * 1000)
"""


def stand_in_extension() -> int:
    """A thread answering as the AWS Parameters and Secrets Lambda Extension does (GetSecretValue's JSON for any
    ``secretId``), for the bench's probes; its port. What the probe measures is the function's side of the call."""
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Answer(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps({"ARN": "bench/secret", "SecretString": "a-bench-secret"}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("localhost", 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return int(server.server_address[1])


@dataclass(frozen=True)
class Probe:
    name: str
    source: str
    env: dict[str, str]


def base_env() -> dict[str, str]:
    """No real account, endpoint or credentials: creating a client needs a region only; no request is sent."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "POWERTOOLS_"))}
    return env | {"AWS_DEFAULT_REGION": "us-east-1", "PYTHONDONTWRITEBYTECODE": "0", "PYTHONPATH": ""}


def run(probe: Probe) -> str:
    """The probe's output in a fresh interpreter (from the repository root); a failed probe ends the bench."""
    out = subprocess.run(
        [sys.executable, "-c", probe.source], capture_output=True, text=True, env=probe.env, cwd=ROOT, check=False
    )
    if out.returncode:
        raise SystemExit(f"{probe.name}: the probe failed\n{out.stderr}")
    return out.stdout.strip()


def sample(probe: Probe) -> float:
    """One timing: the last line a (function, floor or monolith) probe prints, in CPU ms."""
    return float(run(probe).splitlines()[-1])


def side_by_side(probe: Probe, floor: Probe, runs: int) -> tuple[list[float], list[float]]:
    """``runs`` samples of ``probe`` and as many of the floor, alternating which goes first."""
    mine, floors = [], []
    for n in range(runs):
        pair = (probe, floor) if n % 2 == 0 else (floor, probe)
        first, second = (sample(p) for p in pair)
        mine.append(first if n % 2 == 0 else second)
        floors.append(second if n % 2 == 0 else first)
    return mine, floors
