"""Uploading files straight to S3 with the presigned POSTs the service signs, a few at a time, under one bar.

Each file is signed (``POST …/uploads``: the policy fixes its key, content type and exact size) and then posted as
``multipart/form-data``: every field of the ticket, then the file as the last field, ``file``. The bytes never go
through the API. A connection cut or a 5xx from S3 is tried again (signed afresh); a refusal raises
``UploadError`` with S3's code and message.
"""

from __future__ import annotations

import io
import re
import time
from collections.abc import Callable
from typing import Any, BinaryIO, cast

import httpx
from tqdm import tqdm  # type: ignore[import-untyped]  # no stubs of its own; the one use is typed here

from ..errors import ClientError, TransportError
from ..portal import Portal
from .files import BundleFile
from .parallel import run_all, workers_for

TRIES = 3
MB = 1_000_000
S3_TIMEOUT = httpx.Timeout(120.0, connect=10.0)
S3_ERROR = re.compile(r"<(Code|Message)>([^<]*)</\1>")


class UploadError(ClientError):
    """S3 refused an upload (the policy, the size, an expired signature): its status, code and message."""

    def __init__(self, path: str, status: int, code: str, message: str):
        super().__init__(f"upload of {path} refused by storage: {status} {code}: {message}")
        self.path, self.status, self.code, self.message = path, status, code, message


def progress_bar(total: int, *, progress: bool, desc: str) -> Any:
    """One bar for the bytes of a whole run, on stderr; none unless ``progress`` and stderr is a terminal."""
    return tqdm(total=total, unit="B", unit_scale=True, desc=desc, disable=None if progress else True, leave=True)


class _Counted(io.RawIOBase):
    """The file as httpx reads it into the form: each chunk read moves the bar; a rewind takes its bytes back."""

    def __init__(self, stream: BinaryIO, bar: Any):
        super().__init__()
        self._stream, self._bar, self.sent = stream, bar, 0

    def read(self, size: int = -1) -> bytes:
        chunk = self._stream.read(size)
        self.sent += len(chunk)
        self._bar.update(len(chunk))
        return chunk

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        self._bar.update(-self.sent)
        self.sent = 0
        return self._stream.seek(offset, whence)

    def fileno(self) -> int:  # httpx takes the form's length from it (S3 wants a Content-Length, not chunks)
        return self._stream.fileno()

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True


def upload_files(
    portal: Portal,
    workspace_id: str,
    folder: str,
    files: list[BundleFile],
    *,
    progress: bool,
    done: Callable[[BundleFile], None],
) -> None:
    """Upload each file to ``<folder><path>`` (``folder``: ``projects/<agentId>/``); ``done(file)`` after each."""
    if not files:
        return
    with (
        httpx.Client(timeout=S3_TIMEOUT) as http,
        progress_bar(sum(f.size for f in files), progress=progress, desc="upload") as bar,
    ):

        def task(file: BundleFile) -> Callable[[], None]:
            def run() -> None:
                try:
                    upload_one(portal, http, workspace_id, path=folder + file.path, file=file, bar=bar)
                except ClientError as error:
                    error.add_note(f"while carrying out: upload {file.path}")
                    raise
                done(file)

            return run

        # Large files gain from side-by-side streams as many small ones do: each MB counts as a file.
        weight = sum(max(1, file.size // MB) for file in files)
        run_all([task(file) for file in files], workers=min(len(files), workers_for(weight)))


def upload_one(portal: Portal, http: httpx.Client, workspace_id: str, *, path: str, file: BundleFile, bar: Any) -> None:
    """Sign and post one file; a cut connection or a 5xx is tried again (``TRIES`` in all), a refusal raised."""
    for attempt in range(TRIES):
        last = attempt == TRIES - 1
        ticket = portal.create_upload(workspace_id, path=path, content_type=file.content_type, size=file.size)
        with file.source.open("rb") as stream:
            body = _Counted(stream, bar)
            try:
                form = {"file": (file.source.name, cast(BinaryIO, body), file.content_type)}  # read as a file
                answer = http.post(ticket.url, data=ticket.fields, files=form)
            except httpx.TransportError as error:
                if last:
                    raise TransportError(f"upload of {path}: {error}") from error
                body.seek(0)  # its bytes off the bar: they are sent again
                time.sleep(0.5 * 2**attempt)
                continue
            if answer.is_success:
                return
            body.seek(0)
        if answer.status_code < 500 or last:
            found = dict(S3_ERROR.findall(answer.text))
            raise UploadError(path, answer.status_code, found.get("Code", "?"), found.get("Message", answer.text[:200]))
        time.sleep(0.5 * 2**attempt)
