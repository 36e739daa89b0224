"""Reading a browser-based upload (S3's POST Object) as S3 does: the fields before the file, the file's size, the body.

The form is read chunk by chunk with Werkzeug's sans-IO ``MultipartDecoder`` (the parser behind Flask's
``request.form``, so behind moto's own reading of the same body): field values are kept (S3 allows 20 KB of
them), the file is only counted, and the raw bytes go to a spooled temporary file (memory up to 1 MiB, then
disk) so that moto can be handed the body it would have read. S3 ignores every field after the file part, so
when there are any the body handed on ends with the file part and a closing delimiter: moto, which reads them
all, would otherwise store metadata S3 never sees.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from tempfile import SpooledTemporaryFile
from typing import IO, Any

from werkzeug.http import parse_options_header
from werkzeug.sansio.multipart import NEED_DATA, Data, Epilogue, Field, File, MultipartDecoder, State
from werkzeug.wsgi import get_input_stream

# S3: "The form data and boundaries (excluding the contents of the file) cannot exceed 20 KB": 20,480 bytes.
PRE_DATA_LIMIT = 20 * 1024
CHUNK = 64 * 1024
IN_MEMORY = 1024 * 1024  # a larger body spills to disk while it waits for moto


class Refusal(Exception):
    """S3's answer to a request it refuses: status, code, message and the extra elements of its <Error> document."""

    def __init__(self, status: int, code: str, message: str, **details: object) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message, self.details = status, code, message, details


MALFORMED = "The body of your POST request is not well-formed multipart/form-data."


@dataclass
class PostForm:
    fields: list[tuple[str, str]]  # (name as sent, value) of the parts before the file, in order
    filename: str | None  # the file part's filename parameter (None: the part had none, or there was no file)
    file_size: int | None  # None: no part named "file"
    body: IO[bytes]  # what moto is handed, at its start
    length: int

    @property
    def values(self) -> dict[str, str]:
        """Field values by lower-cased name (S3 compares names case-insensitively), ``${filename}`` expanded.

        S3 joins the values of a repeated field with commas, and expands ``${filename}`` in every field before
        the policy is checked; a file part without a filename parameter leaves it as it is (S3 does too).
        """
        base = re.split(r"[/\\]", self.filename)[-1] if self.filename is not None else None
        values: dict[str, list[str]] = {}
        for name, value in self.fields:
            values.setdefault(name.lower(), []).append(value if base is None else value.replace("${filename}", base))
        return {name: ",".join(parts) for name, parts in values.items()}

    @property
    def names(self) -> dict[str, str]:
        """Each field's name as first sent, by its lower-cased name (S3 reports an extra field as sent)."""
        names: dict[str, str] = {}
        for name, _ in self.fields:
            names.setdefault(name.lower(), name)
        return names


def read_form(environ: dict[str, Any]) -> PostForm:
    """Read the whole request body; a body S3 would not read is a ``Refusal`` (after the body was read all the same)."""
    enclosure, options = parse_options_header(environ.get("CONTENT_TYPE", ""))
    stream = get_input_stream(environ)
    # Not a context manager: on success the spool is the body moto reads, closed once moto has answered.
    spool: SpooledTemporaryFile[bytes] = SpooledTemporaryFile(IN_MEMORY)  # noqa: SIM115
    try:
        if enclosure.lower() != "multipart/form-data":
            message = "At least one of the pre-conditions you specified did not hold"
            condition = "Bucket POST must be of the enclosure-type multipart/form-data"
            raise Refusal(412, "PreconditionFailed", message, Condition=condition)
        if not environ.get("CONTENT_LENGTH"):  # chunked: S3 wants a POST's length (and so does moto)
            raise Refusal(411, "MissingContentLength", "You must provide the Content-Length HTTP header.")
        if not options.get("boundary"):
            raise Refusal(400, "MalformedPOSTRequest", MALFORMED)
        return _Reader(options["boundary"].encode("latin-1", "replace"), spool).read(stream)
    except BaseException:
        spool.close()
        raise
    finally:
        # Whatever was refused, the client sent the whole body: read it, so it gets the answer, not a reset.
        while stream.read(CHUNK):
            pass


class _Reader:
    def __init__(self, boundary: bytes, spool: SpooledTemporaryFile[bytes]) -> None:
        # The decoder's buffer holds at most a chunk past what it has parsed; more is a header that never ends.
        self.decoder = MultipartDecoder(boundary, max_form_memory_size=PRE_DATA_LIMIT + CHUNK)
        self.boundary, self.spool = boundary, spool
        self.received = 0
        self.fields: list[tuple[str, str]] = []
        self.name: str | None = None
        self.value = bytearray()
        self.filename: str | None = None
        self.file_size: int | None = None
        self.done = False  # the file part (or the form) has ended: nothing after it matters
        self.cut = False  # the body handed on was closed after the file part

    def read(self, stream: IO[bytes]) -> PostForm:
        while chunk := stream.read(CHUNK):
            if not self.cut:
                self.spool.write(chunk)
            if not self.done:
                self.received += len(chunk)
                self._decode(chunk)
        if not self.done:
            self._decode(None)  # the body ended: the decoder raises if the form was not complete
        length = self.spool.seek(0, 2)
        self.spool.seek(0)
        return PostForm(self.fields, self.filename, self.file_size, self.spool, length)

    def _decode(self, chunk: bytes | None) -> None:
        try:
            self.decoder.receive_data(chunk)
            while not self.done and (event := self.decoder.next_event()) is not NEED_DATA:
                self._take(event)
                if self.file_size is None and self._consumed() > PRE_DATA_LIMIT:
                    raise _pre_data_too_large()
        except Refusal:
            raise
        except Exception as error:  # ValueError for a broken form; RequestEntityTooLarge for a runaway header
            if self.file_size is None and self.received > PRE_DATA_LIMIT:
                raise _pre_data_too_large() from error
            raise Refusal(400, "MalformedPOSTRequest", MALFORMED) from error

    def _take(self, event: object) -> None:
        if isinstance(event, Field | File):
            if not event.name:
                raise Refusal(400, "MalformedPOSTRequest", MALFORMED)
            self.name = event.name
            self.value.clear()
            if event.name == "file":  # S3 takes the part named "file" as the file, with or without a filename
                if self._consumed() > PRE_DATA_LIMIT:  # everything before its content counts, its headers too
                    raise _pre_data_too_large()
                self.file_size = 0
                self.filename = event.filename if isinstance(event, File) else None
        elif isinstance(event, Data) and self.file_size is not None:
            self.file_size += len(event.data)
            if not event.more_data:
                self._file_ended()
        elif isinstance(event, Data):
            self.value += event.data
            if not event.more_data and self.name is not None:
                self.fields.append((self.name, self.value.decode("utf-8", "replace")))
        elif isinstance(event, Epilogue):
            self.done = True  # a form without a file part

    def _consumed(self) -> int:
        return self.received - len(self.decoder.buffer)

    def _file_ended(self) -> None:
        self.done = True
        if self.decoder.state is State.EPILOGUE:
            return  # the file was the last part: the body goes on unchanged
        # Other parts follow, which S3 ignores: close the body right after the file part's data. The decoder has
        # consumed up to the end of the delimiter line that ended it; that line starts at the last "--boundary".
        end = self._consumed()
        start = max(0, end - len(self.boundary) - 64)
        self.spool.seek(start)
        cut = start + self.spool.read(end - start).rfind(b"--" + self.boundary)
        self.spool.seek(cut)
        self.spool.truncate()
        self.spool.write(b"--" + self.boundary + b"--\r\n")
        self.cut = True


def _pre_data_too_large() -> Refusal:
    # S3's wording, spelling included (recorded answers, 2013-2020).
    return Refusal(
        400,
        "MaxPostPreDataLengthExceeded",
        "Your POST request fields preceeding the upload file was too large.",
        MaxPostPreDataLengthBytes=PRE_DATA_LIMIT,
    )
