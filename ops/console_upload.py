"""``make console-upload STACK=...`` (``python -m ops --stack NAME console-upload``): the console's build to the stack.

Reads the stack's outputs (ConsoleBucketName, ConsoleDistributionId, ConsoleUrl), uploads ``console/dist`` with each
file's content type and cache header, deletes what the new build no longer has, and invalidates ``/index.html`` and
``/`` at the distribution. ``index.html`` is never cached (a new build is seen at the next load); everything under
``assets/`` is named by its content's hash, so it is cached for a year and never changes (docs/decisions.md, "The
console on AWS").
"""

from __future__ import annotations

import mimetypes
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DIST = Path(__file__).resolve().parent.parent / "console" / "dist"
NO_CACHE = "no-cache"  # the browser asks again each load; an unchanged file is a 304
IMMUTABLE = "public, max-age=31536000, immutable"  # hashed names: a new build has new names
OTHER = "public, max-age=3600"  # favicon and the like: unhashed, rarely changed
INVALIDATED = ["/index.html", "/"]
TYPES = {  # what mimetypes may not know or guesses differently from one system to another
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".svg": "image/svg+xml",
    ".webmanifest": "application/manifest+json",
    ".woff2": "font/woff2",
    ".txt": "text/plain; charset=utf-8",
}


@dataclass
class Uploaded:
    bucket: str
    url: str
    uploaded: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    invalidation: str = ""


def content_type(path: Path) -> str:
    return TYPES.get(path.suffix.lower()) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"


def cache_control(key: str) -> str:
    if key.endswith(".html"):
        return NO_CACHE
    if key.startswith("assets/"):
        return IMMUTABLE
    return OTHER


def stack_outputs(cloudformation: Any, stack: str) -> dict[str, str]:
    described = cloudformation.describe_stacks(StackName=stack)["Stacks"][0]
    outputs = {o["OutputKey"]: o["OutputValue"] for o in described.get("Outputs", [])}
    missing = [k for k in ("ConsoleBucketName", "ConsoleDistributionId") if k not in outputs]
    if missing:
        raise SystemExit(
            f"console-upload: stack {stack} has no output {', '.join(missing)}: deploy this template first"
        )
    return outputs


def upload(s3: Any, cloudfront: Any, outputs: dict[str, str], dist: Path = DIST) -> Uploaded:
    """The build in ``dist`` to the console bucket: assets first and index.html last, so no page is served that names
    an asset not yet there; then what the build no longer has is deleted, and index.html invalidated."""
    if not (dist / "index.html").is_file():
        raise SystemExit(f"console-upload: {dist / 'index.html'} is missing: run make console first")
    bucket = outputs["ConsoleBucketName"]
    done = Uploaded(bucket, outputs.get("ConsoleUrl", ""))
    files = sorted((p for p in dist.rglob("*") if p.is_file()), key=lambda p: (p.name == "index.html", str(p)))
    for path in files:
        key = path.relative_to(dist).as_posix()
        s3.upload_file(
            str(path), bucket, key, ExtraArgs={"ContentType": content_type(path), "CacheControl": cache_control(key)}
        )
        done.uploaded.append(key)
    keep = set(done.uploaded)
    stale = [
        obj["Key"]
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket)
        for obj in page.get("Contents", [])
        if obj["Key"] not in keep
    ]
    for start in range(0, len(stale), 1000):  # DeleteObjects takes at most 1,000 keys
        batch = stale[start : start + 1000]
        s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": k} for k in batch], "Quiet": True})
    done.deleted = stale
    answer = cloudfront.create_invalidation(
        DistributionId=outputs["ConsoleDistributionId"],
        InvalidationBatch={
            "Paths": {"Quantity": len(INVALIDATED), "Items": INVALIDATED},
            "CallerReference": f"console-upload-{time.time_ns()}",
        },
    )
    done.invalidation = answer["Invalidation"]["Id"]
    return done


def main(stack: str, session: Any, dist: Path = DIST) -> int:
    outputs = stack_outputs(session.client("cloudformation"), stack)
    done = upload(session.client("s3"), session.client("cloudfront"), outputs, dist)
    print(f"console-upload: {len(done.uploaded)} files to s3://{done.bucket}, {len(done.deleted)} stale deleted, "
          f"invalidation {done.invalidation}")  # fmt: skip
    if done.url:
        print(f"console-upload: the console is at {done.url}")
    return 0
