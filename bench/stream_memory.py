"""Peak memory of the r2 function while it streams a large object, through the whole local path.

Starts the local runner, puts a ``--mb`` MB object (default 256) into the first demo
workspace and downloads it over HTTP as a video player does: ``Range: bytes=N-`` again
and again (one response carries at most ``R2_MAX_RESPONSE_BYTES``, just under Lambda's
200 MB), reading and discarding 1 MB at a time. Reports the emulated Lambda container's
peak resident memory (``VmHWM`` of its process) after a small request and after the large
downloads. A flat peak means the body was piped in chunks, never held whole. A plain GET of
the object (over the cap) is answered with a 307 to S3. Beside it, in the same run and
alternated with it: the same ranges of the object straight from the runner's moto endpoint with
boto3's ``get_object`` (1 MB reads, a fresh interpreter), the floor r2's throughput is compared with.

    .venv/bin/python bench/stream_memory.py [--mb 256] [--runs 3] [--json PATH]
"""

from __future__ import annotations

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
sys.path[:0] = [str(ROOT)]  # a script, not a test: make ``local`` importable when run by path
MB = 1024 * 1024

from bench.benchkit import command, finish, median, parser, table  # noqa: E402
from stack.process import moto_client, running  # noqa: E402


def function_pids(name: str) -> list[int]:
    """Runtime processes (``python -m core.platform.lambda_runtime``, the stream-bootstrap's) of the emulated
    containers of
    function ``name``."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if not proc.name.isdigit() or b"core.platform.lambda_runtime" not in (proc / "cmdline").read_bytes():
                continue
            if f"AWS_LAMBDA_FUNCTION_NAME={name}".encode() in (proc / "environ").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (its threads included)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def download(base: str, path: str, key: str, start: int = 0) -> tuple[int, int, str | None]:
    """One request for the bytes from ``start`` (as a player asks): status, bytes read, Content-Range."""
    url = urlsplit(base)
    assert url.hostname is not None, base
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=600)
    headers = {"Authorization": f"Bearer {key}", "Range": f"bytes={start}-"}
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    size = 0
    while chunk := response.read(MB):
        size += len(chunk)
    connection.close()
    return response.status, size, response.getheader("Content-Range")


RAW_PROBE = """
import sys, time, boto3
s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name=sys.argv[2], aws_access_key_id="local",
                  aws_secret_access_key="local")
start, size = time.perf_counter(), 0
for part in map(int, sys.argv[5].split(",")):
    byte_range = f"bytes={size}-{size + part - 1}"
    for chunk in s3.get_object(Bucket=sys.argv[3], Key=sys.argv[4], Range=byte_range)["Body"].iter_chunks(2**20):
        size += len(chunk)
seconds = time.perf_counter() - start
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(size, seconds, peak / 1024)
"""


def raw_boto3(state: Path, bucket: str, key: str, parts: list[int]) -> tuple[int, float, float]:
    """The same GetObjects the function makes (the same ranges), straight from the same moto endpoint with boto3 in
    a fresh interpreter: bytes, seconds, peak MB. (moto copies the object's bytes to answer a range.)"""
    runner = json.loads((state / "runner.json").read_text())
    argv = [sys.executable, "-c", RAW_PROBE, runner["awsEndpoint"], runner["region"], bucket, key]
    argv.append(",".join(map(str, parts)))
    size, seconds, peak = subprocess.run(argv, capture_output=True, text=True, check=True).stdout.split()
    return int(size), float(seconds), float(peak)


def through_r2(base: str, key: str, total: int) -> tuple[list[int], float]:
    """The object through /v1/r2 as a player reads it (``Range: bytes=N-`` until the end): part sizes, seconds."""
    started, offset, parts = time.perf_counter(), 0, []
    while offset < total:
        status, size, content_range = download(base, "/v1/r2/assets/large.bin", key, offset)
        assert status == 206 and content_range, (status, content_range)
        parts.append(size)
        offset += size
    return parts, time.perf_counter() - started


def main(argv: list[str] | None = None) -> dict[str, str]:
    cli = parser(__doc__)
    cli.add_argument("--mb", type=int, default=256)
    cli.add_argument("--runs", type=int, default=3, help="downloads each way, alternated (medians reported)")
    args = cli.parse_args(argv)
    state = Path(tempfile.mkdtemp(prefix="bench-"))
    with running(state) as demo:
        ws = demo["workspaces"][0]
        s3 = moto_client(state, "s3")
        bucket = next(b["Name"] for b in s3.list_buckets()["Buckets"])
        large = f"workspaces/{ws['id']}/assets/large.bin"
        s3.put_object(Bucket=bucket, Key=f"workspaces/{ws['id']}/assets/small.bin", Body=b"x" * 1024)
        s3.put_object(Bucket=bucket, Key=large, Body=os.urandom(args.mb * MB))

        download(demo["brainUrl"], "/v1/r2/assets/small.bin", ws["key"])
        (pid,) = function_pids("BrainR2Function")
        baseline = peak_rss_mb(pid)
        runner = json.loads((state / "runner.json").read_text())["pid"]
        r2_seconds: list[float] = []
        raw_seconds: list[float] = []
        raw_peaks: list[float] = []
        parts: list[int] = []
        cpu = {"r2 runner": 0.0, "r2 container": 0.0, "raw runner": 0.0}
        for _ in range(args.runs):  # alternated, so both see the same noise
            before = cpu_seconds(runner), cpu_seconds(pid)
            parts, seconds = through_r2(demo["brainUrl"], ws["key"], args.mb * MB)
            r2_seconds.append(seconds)
            cpu["r2 runner"] += cpu_seconds(runner) - before[0]
            cpu["r2 container"] += cpu_seconds(pid) - before[1]
            before = cpu_seconds(runner), cpu_seconds(pid)
            size, seconds, peak = raw_boto3(state, bucket, large, parts)
            cpu["raw runner"] += cpu_seconds(runner) - before[0]
            assert size == args.mb * MB, size
            raw_seconds.append(seconds)
            raw_peaks.append(peak)
        after = peak_rss_mb(pid)
        whole = http.client.HTTPConnection(urlsplit(demo["brainUrl"]).hostname, urlsplit(demo["brainUrl"]).port)
        whole.request("GET", "/v1/r2/assets/large.bin", headers={"Authorization": f"Bearer {ws['key']}"})
        redirect = whole.getresponse().status
    r2_rate, raw_rate = args.mb / median(r2_seconds), args.mb / median(raw_seconds)
    rows = [
        ["raw boto3 get_object, same ranges (same moto endpoint)", raw_rate, "1.00", "", median(raw_peaks)],
        ["/v1/r2 over HTTP (runner, container)", r2_rate, f"{r2_rate / raw_rate:.2f}", baseline, after],
    ]
    markdown = "\n\n".join([
        f"A {args.mb} MB object, median of {args.runs} downloads each way (alternated); /v1/r2 in "
        f"{len(parts)} range responses of {[round(p / MB, 1) for p in parts]} MB; a plain GET of it answers "
        f"{redirect}. Target: r2 at least 0.8x raw, peak RSS flat.",
        table(["path", "MB/s", "ratio", "peak RSS before, MB", "peak RSS after, MB"], rows),
        f"Peak RSS growth of the r2 function over the downloads: {after - baseline:.1f} MB (the raw column is the "
        "whole boto3 process).",
        "CPU seconds per download (the runner process holds moto's server and the gateway: one interpreter, one "
        "GIL, that serves S3's bytes and relays them again on the r2 path):",
        table(["process", "CPU s / download"], [[name, f"{total / args.runs:.2f}"] for name, total in cpu.items()]),
    ])  # fmt: skip
    return finish(args, "r2 throughput and memory beside raw boto3", command("stream_memory.py", argv or []), markdown)


if __name__ == "__main__":
    main(sys.argv[1:])
