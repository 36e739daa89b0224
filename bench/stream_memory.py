"""Peak memory of the r2 function while it streams a large object, through the whole local path.

Starts the local runner, puts a ``--mb`` MB object (default 256) into the first demo
workspace and downloads it over HTTP as a video player does: ``Range: bytes=N-`` again
and again (one response carries at most ``R2_MAX_RESPONSE_BYTES``, just under Lambda's
200 MB), reading and discarding 1 MB at a time. Reports the emulated Lambda container's
peak resident memory (``VmHWM`` of its process) after a small request and after the large
download, and the throughput. A flat peak means the body was piped in chunks, never held
whole. A plain GET of the object (over the cap) is answered with a 307 to S3.

    .venv/bin/python bench/stream_memory.py [--mb 256]
"""

from __future__ import annotations

import argparse
import http.client
import os
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]  # a script, not a test: make ``local`` importable when run by path
MB = 1024 * 1024

from local.process import moto_client, running  # noqa: E402


def function_pids(name: str) -> list[int]:
    """Runtime processes (``core.runtime``) of the emulated containers of function ``name``."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if not proc.name.isdigit() or b"core.runtime" not in (proc / "cmdline").read_bytes():
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


def download(base: str, path: str, key: str, start: int = 0) -> tuple[int, int, str | None]:
    """One request for the bytes from ``start`` (as a player asks): status, bytes read, Content-Range."""
    url = urlsplit(base)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=600)
    headers = {"Authorization": f"Bearer {key}", "Range": f"bytes={start}-"}
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    size = 0
    while chunk := response.read(MB):
        size += len(chunk)
    connection.close()
    return response.status, size, response.getheader("Content-Range")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=256)
    args = parser.parse_args()
    state = Path(tempfile.mkdtemp(prefix="bench-"))
    with running(state) as demo:
        ws = demo["workspaces"][0]
        s3 = moto_client(state, "s3")
        bucket = next(b["Name"] for b in s3.list_buckets()["Buckets"])
        s3.put_object(Bucket=bucket, Key=f"workspaces/{ws['id']}/assets/small.bin", Body=b"x" * 1024)
        s3.put_object(Bucket=bucket, Key=f"workspaces/{ws['id']}/assets/large.bin", Body=os.urandom(args.mb * MB))

        download(demo["brainUrl"], "/v1/r2/assets/small.bin", ws["key"])
        (pid,) = function_pids("BrainR2Function")
        baseline = peak_rss_mb(pid)
        started, offset, parts = time.perf_counter(), 0, []
        while offset < args.mb * MB:
            status, size, content_range = download(demo["brainUrl"], "/v1/r2/assets/large.bin", ws["key"], offset)
            assert status == 206 and content_range, (status, content_range)
            parts.append(size)
            offset += size
        seconds = time.perf_counter() - started
        after = peak_rss_mb(pid)
        whole = http.client.HTTPConnection(urlsplit(demo["brainUrl"]).hostname, urlsplit(demo["brainUrl"]).port)
        whole.request("GET", "/v1/r2/assets/large.bin", headers={"Authorization": f"Bearer {ws['key']}"})
        redirect = whole.getresponse().status
        print(
            f"object            {args.mb} MB in {len(parts)} range responses of {[round(p / MB, 1) for p in parts]} MB"
        )
        print(
            f"                  {seconds:.1f} s ({args.mb / seconds:.0f} MB/s, local); a plain GET answers {redirect}"
        )
        print(f"function peak RSS {baseline:.1f} MB after a 1 KB object, {after:.1f} MB after {args.mb} MB")
        print(f"growth            {after - baseline:.1f} MB")


if __name__ == "__main__":
    main()
