"""Peak memory of the r2 function while it streams a large object, through the whole local path.

Starts the local runner, puts a ``--mb`` MB object (default 256) into the first demo
workspace, downloads it over HTTP (reading and discarding 1 MB at a time), and reports
the emulated Lambda container's peak resident memory (``VmHWM`` of its process) after a
small request and after the large one, plus the download's throughput. A flat peak means
the body was piped in chunks, never held whole.

    .venv/bin/python bench/stream_memory.py [--mb 256]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
MB = 1024 * 1024


def start_runner(state: Path) -> subprocess.Popen:
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(ROOT / "layers" / "common"), str(ROOT)])}
    command = [sys.executable, "-m", "local", "--portal-port", "0", "--brain-port", "0", "--state-dir", str(state)]
    command += ["--media-cache", str(ROOT / ".local" / "media-cache")]
    runner = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not (state / "demo.json").exists():
        if runner.poll() is not None:
            sys.exit("local runner exited")
        time.sleep(0.1)
    return runner


def function_pids(name: str) -> list[int]:
    """Processes of the emulated containers of function ``name`` (by their Lambda environment)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and f"AWS_LAMBDA_FUNCTION_NAME={name}".encode() in (proc / "environ").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def download(base: str, path: str, key: str) -> tuple[int, int, float]:
    url = urlsplit(base)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=600)
    start = time.perf_counter()
    connection.request("GET", path, headers={"Authorization": f"Bearer {key}"})
    response = connection.getresponse()
    size = 0
    while chunk := response.read(MB):
        size += len(chunk)
    connection.close()
    return response.status, size, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=256)
    args = parser.parse_args()
    state = Path(tempfile.mkdtemp(prefix="bench-"))
    runner = start_runner(state)
    try:
        import boto3

        demo = json.loads((state / "demo.json").read_text())
        aws = json.loads((state / "runner.json").read_text())
        ws = demo["workspaces"][0]
        s3 = boto3.client("s3", endpoint_url=aws["awsEndpoint"], region_name=aws["region"],
                          aws_access_key_id="local", aws_secret_access_key="local")  # noqa: S106  # fmt: skip
        bucket = next(b["Name"] for b in s3.list_buckets()["Buckets"])
        s3.put_object(Bucket=bucket, Key=f"workspaces/{ws['id']}/assets/small.bin", Body=b"x" * 1024)
        s3.put_object(Bucket=bucket, Key=f"workspaces/{ws['id']}/assets/large.bin", Body=os.urandom(args.mb * MB))

        status, size, _ = download(demo["brainUrl"], "/v1/r2/assets/small.bin", ws["key"])
        (pid,) = function_pids("BrainR2Function")
        baseline = peak_rss_mb(pid)
        status, size, seconds = download(demo["brainUrl"], "/v1/r2/assets/large.bin", ws["key"])
        assert (status, size) == (200, args.mb * MB), (status, size)
        after = peak_rss_mb(pid)
        print(f"object            {args.mb} MB streamed in {seconds:.1f} s ({args.mb / seconds:.0f} MB/s, local)")
        print(f"function peak RSS {baseline:.1f} MB after a 1 KB object, {after:.1f} MB after {args.mb} MB")
        print(f"growth            {after - baseline:.1f} MB")
    finally:
        runner.terminate()
        runner.wait(timeout=60)


if __name__ == "__main__":
    main()
