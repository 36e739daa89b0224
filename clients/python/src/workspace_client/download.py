"""Resumable downloads of r2 objects: what to ask for, what each answer means, and the final check.

Transport-independent: ``brain.py`` drives it with httpx, sync or async. The bytes go to
``<path>.part`` and the object's ETag to ``<path>.part.etag``; a later ``download`` of the same path
resumes from the part's size with ``Range: bytes=<size>-`` and ``If-Range: <etag>``, so the service
sends the rest only if the object is still the one the part came from (else the whole object, and
the part starts over). The service may answer a range with less than asked (its response cap): the
rest is asked for again. At the end the file must have the announced length, and when the ETag is a
single-part S3 ETag (the hex MD5 of the object) the file's MD5 must equal it; a multipart ETag
(``"<hex>-<parts>"``) or any other form is not an MD5 of the content, so then only the length is
checked. On a mismatch the part is deleted and ``DownloadIntegrityError`` raised: nothing corrupt is
kept. Only a complete, checked file is renamed to ``path``.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import AsyncIterable, Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import BinaryIO

from .errors import DownloadIntegrityError, TransportError
from .objects import MAX_DOWNLOAD_ROUNDS

Progress = Callable[[int, int | None], None]
CONTENT_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+)")
UNSATISFIED_RANGE = re.compile(r"bytes \*/(\d+)")
MD5_ETAG = re.compile(r'"([0-9a-fA-F]{32})"')
WRITE, RESTART, COMPLETE = "write", "restart", "complete"


def stderr_bar(done: int, total: int | None) -> None:
    """A one-line progress bar on stderr."""
    if total:
        filled = int(30 * done / total)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {done * 100 // total:3d}% {done}/{total} bytes")
    else:
        sys.stderr.write(f"\r{done} bytes")
    if total is not None and done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def default_progress(progress: Progress | bool | None) -> Progress | None:
    """None: a bar when stderr is a terminal; False: none; a callable: that."""
    if progress is None:
        return stderr_bar if sys.stderr.isatty() else None
    return None if progress is False else progress  # type: ignore[return-value]


class Resumable:
    def __init__(self, target: str | Path, progress: Progress | None):
        self.target = Path(target)
        self.part = self.target.with_name(self.target.name + ".part")
        self.etag_file = self.target.with_name(self.target.name + ".part.etag")
        self.progress = progress
        self.total: int | None = None
        self.etag: str | None = None
        self.offset = 0
        self.done = False  # the last answer completed the part: no further round
        if self.part.exists() and self.etag_file.exists():
            self.etag, self.offset = self.etag_file.read_text().strip() or None, self.part.stat().st_size
        if not self.etag:
            self.discard()

    def rounds(self, path: str) -> Iterator[dict[str, str]]:
        """The request headers of each answer the download may take, until one completes the part.

        The sync and async ``download`` only send, ``accept`` and write; a round whose body is cut
        mid-way (or restarts) leaves ``done`` false, so the next round resumes from the part.
        """
        for _ in range(MAX_DOWNLOAD_ROUNDS):
            yield self.request_headers()
            if self.done:
                return
        raise TransportError(f"{path}: no complete download after {MAX_DOWNLOAD_ROUNDS} answers")

    def request_headers(self) -> dict[str, str]:
        if self.offset and self.etag:
            return {"Range": f"bytes={self.offset}-", "If-Range": self.etag}
        return {}

    def accept(self, status: int, headers: Mapping[str, str]) -> str:
        """What an answer means: WRITE its body at ``offset``, RESTART from zero, or the part is COMPLETE."""
        etag = headers.get("etag")
        if status == 416:  # the part already holds every byte (or the object shrank: start over)
            found = UNSATISFIED_RANGE.fullmatch(headers.get("content-range", ""))
            if found and self.offset == int(found.group(1)):
                self.total = self.offset
                self.done = True
                return COMPLETE
            return self._restart()
        if status == 206:
            found = CONTENT_RANGE.fullmatch(headers.get("content-range", ""))
            if not found or int(found.group(1)) != self.offset or (self.etag and etag != self.etag):
                return self._restart()  # not the bytes that follow the part, or of another version
            self.total = int(found.group(3))
        elif status == 200:
            self.discard()  # the whole object, from the start (the part was stale, or there was none)
            length = headers.get("content-length")
            self.total = int(length) if length and length.isdigit() else None
        else:
            raise DownloadIntegrityError(f"unexpected answer {status} to a download")
        if etag != self.etag or not self.etag_file.exists():
            self.etag = etag
            self.etag_file.write_text(etag or "")
        return WRITE

    def write(self, chunks: Iterable[bytes]) -> None:
        """Append a response body to the part, reporting progress after each chunk (a callback may raise to stop)."""
        with self.part.open("ab") as out:
            for chunk in chunks:
                self._append(out, chunk)
        self.done = self.complete

    async def awrite(self, chunks: AsyncIterable[bytes]) -> None:
        with self.part.open("ab") as out:
            async for chunk in chunks:
                self._append(out, chunk)
        self.done = self.complete

    def _append(self, out: BinaryIO, chunk: bytes) -> None:
        out.write(chunk)
        self.offset += len(chunk)
        if self.progress:
            out.flush()  # what the callback reports is on disk, should it stop the download
            self.progress(self.offset, self.total)

    @property
    def complete(self) -> bool:
        return self.total is not None and self.offset >= self.total

    def finish(self) -> Path:
        """Check the part against the announced length and ETag, then rename it to the target."""
        size = self.part.stat().st_size if self.part.exists() else 0
        if self.total is None or size != self.total:
            self.discard()
            raise DownloadIntegrityError(f"{self.target}: {size} bytes, the service announced {self.total}")
        expected = MD5_ETAG.fullmatch(self.etag or "")
        if expected:
            digest = hashlib.md5(usedforsecurity=False)
            with self.part.open("rb") as data:
                while block := data.read(1 << 20):
                    digest.update(block)
            if digest.hexdigest() != expected.group(1).lower():
                self.discard()
                raise DownloadIntegrityError(f"{self.target}: MD5 {digest.hexdigest()} does not match ETag {self.etag}")
        self.part.replace(self.target)
        self.etag_file.unlink(missing_ok=True)
        return self.target

    def discard(self) -> None:
        self.part.unlink(missing_ok=True)
        self.etag_file.unlink(missing_ok=True)
        self.offset, self.etag = 0, None

    def _restart(self) -> str:
        self.discard()
        return RESTART
