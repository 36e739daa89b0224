"""Buffered containers forked from one warmed process, so a cold start does not pay again for what every one loads.

A container of the source tree spends most of its cold start on the same work: starting Python, importing boto3,
botocore, pydantic, Powertools and PyJWT, and parsing botocore's service models for its first clients (about 0.4 s
of CPU of 0.6 s). The suites start several hundred containers, on two cores. This process does that work once per
runner, then forks a container on request (as multiprocessing's ``forkserver`` does, with its ``preload``).

Each container is still a process of its own, as on Lambda: after the fork it takes its own environment, working
folder, standard streams and ``sys.path``, then imports its handler and runs ``local.containers.worker``'s loop, as
a new interpreter would. Only libraries are loaded before the fork, never the layer's or a function's code, and
botocore's parsed models are shared (the files are the same; each session still makes its own clients). A built
package's containers (``make package-check``) never come from here: they start from a bare interpreter, as on AWS.

    python -m local.containers.fork_server <socket fd>

The runner sends ``{argv, env, cwd}`` with the container's stdin, stdout and stderr over the socket; the answer is the
container's pid with a pidfd of it, which the runner polls, waits on and signals (``ForkedProcess``).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import importlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Sequence
from typing import IO, Any

# What every function imports from the layer's requirements (tests/unit/test_cold_path.py shows the lists);
# a module left out is imported by the container itself, as before.
PRELOAD = (
    "boto3",
    "botocore.session",
    "pydantic",
    "jwt",
    "aws_lambda_powertools.logging",
    "aws_lambda_powertools.metrics",
)
# The clients the functions make (core.platform.aws): made once here, so their models are parsed and cached.
SERVICES = ("dynamodb", "s3", "sqs", "secretsmanager", "ses", "bedrock-runtime")
MAX_MESSAGE = 1 << 20


class ForkedProcess:
    """A container forked by the server: the part of ``subprocess.Popen`` the pool uses, through a pidfd (it is
    the server's child, not ours, so its exit status is the server's to reap)."""

    def __init__(self, pid: int, pidfd: int, stdin: IO[bytes], stdout: IO[bytes]):
        self.pid, self._pidfd = pid, pidfd
        self.stdin, self.stdout = stdin, stdout
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None and self._ended(0):
            self._exited()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            if not self._ended(None if timeout is None else int(timeout * 1000)):
                raise subprocess.TimeoutExpired(f"container {self.pid}", timeout or 0)
            self._exited()
        assert self.returncode is not None
        return self.returncode

    def kill(self) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)

    def _ended(self, timeout_ms: int | None) -> bool:
        waiting = select.poll()  # not select(): a busy runner's descriptors may number past FD_SETSIZE
        waiting.register(self._pidfd, select.POLLIN)
        return bool(waiting.poll(timeout_ms))

    def _exited(self) -> None:
        self.returncode = -1  # it ended; how is for the server, its parent, to know
        os.close(self._pidfd)


class ForkServer:
    """The runner's side: starts the server with ``env`` (what every function's environment shares) and asks it
    for containers, one request at a time."""

    def __init__(self, python: str, env: dict[str, str], cwd: str):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self._socket, self._lock = ours, threading.Lock()
        self.process = subprocess.Popen(
            [python, "-m", "local.containers.fork_server", str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            cwd=cwd,
            env=env,
            process_group=0,  # Ctrl-C reaches the runner only, which lets requests in flight finish first
        )
        theirs.close()

    def spawn(self, argv: Sequence[str], env: dict[str, str], cwd: str) -> ForkedProcess:
        to_child, to_us = os.pipe()  # the container's stdin: we write, it reads
        from_child, its_out = os.pipe()  # its stdout: it writes, we read
        request = json.dumps({"argv": list(argv), "env": env, "cwd": cwd}).encode()
        try:
            with self._lock:
                # Its stderr is the runner's as it is now (a first start points it at the demo's log for a while).
                streams = [to_child, its_out, sys.stderr.fileno()]
                socket.send_fds(self._socket, [len(request).to_bytes(4, "big") + request], streams)
                answer, fds, _, _ = socket.recv_fds(self._socket, 64, 1)
            if not answer or not fds:
                raise OSError("the fork server is gone")
            pid = int(json.loads(answer)["pid"])
        except BaseException:
            for fd in (to_us, from_child):
                os.close(fd)
            raise
        finally:
            os.close(to_child)
            os.close(its_out)
        return ForkedProcess(pid, fds[0], os.fdopen(to_us, "wb"), os.fdopen(from_child, "rb"))

    def close(self) -> None:
        self._socket.close()  # the server sees the end and exits; its containers live on until stopped
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def warm() -> None:
    """Load what every container loads, in this process that the containers fork from."""
    for module in PRELOAD:
        importlib.import_module(module)
    import botocore.loaders
    import botocore.session

    # One Loader for every session of every container: the models it parses are the same files.
    cached = functools.cache(botocore.loaders.create_loader)
    botocore.session.create_loader = botocore.loaders.create_loader = cached
    session = botocore.session.get_session()
    for service in SERVICES:
        session.create_client(service, region_name="us-east-1")  # with what credentials the environment has, or none
    # What every container inherits is never collected by any of them (the gc module's advice for a forking server:
    # no collection walks it, and no write to its objects' headers copies their pages).
    gc.collect()
    gc.freeze()


def _receive(server: socket.socket) -> tuple[dict[str, Any], list[int]] | None:
    head, fds, _, _ = socket.recv_fds(server, 4, 3)
    if len(head) < 4:
        return None
    length, body = int.from_bytes(head, "big"), b""
    while len(body) < length:
        more = server.recv(min(MAX_MESSAGE, length - len(body)))
        if not more:
            return None
        body += more
    return json.loads(body), fds


def _become_container(server: socket.socket, request: dict[str, Any], streams: list[int]) -> None:
    """In the forked child: the container's own streams, folder and environment, then the worker's loop."""
    server.close()
    for number, stream in enumerate(streams):  # stdin, stdout, stderr
        os.dup2(stream, number)
        os.close(stream)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    _start_as_an_interpreter_would()
    sys.argv = ["local.containers.worker", *request["argv"]]
    from local.containers import worker

    worker.main()


def _start_as_an_interpreter_would() -> None:
    """What a new interpreter does with the environment at its start: ``PYTHONPATH`` after the script's folder,
    then ``sitecustomize`` (the tests install their IAM check in a container so, from their ``PYTHONPATH``)."""
    sys.path[1:1] = [folder for folder in os.environ.get("PYTHONPATH", "").split(os.pathsep) if folder]
    sys.modules.pop("sitecustomize", None)
    try:
        importlib.import_module("sitecustomize")
    except ModuleNotFoundError as missing:
        if missing.name != "sitecustomize":
            raise


def serve(server: socket.socket) -> None:
    while True:
        while True:  # reap the containers that ended (the runner holds pidfds of them, not their statuses)
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
        if not select.select([server], [], [], 1.0)[0]:
            continue
        received = _receive(server)
        if received is None:
            return
        request, streams = received
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                _become_container(server, request, streams)
                code = 0
            finally:
                os._exit(code)
        for stream in streams:
            os.close(stream)
        pidfd = os.pidfd_open(pid)
        try:
            socket.send_fds(server, [json.dumps({"pid": pid}).encode()], [pidfd])
        finally:
            os.close(pidfd)


def main() -> None:
    server = socket.socket(fileno=int(sys.argv[1]))
    warm()
    serve(server)


if __name__ == "__main__":
    main()
