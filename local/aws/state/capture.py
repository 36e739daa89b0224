"""Between moto and its clients: every committed write goes to the state journal before its answer leaves.

A WSGI middleware around moto's application (``local.aws.emulator.MotoServer``):

- DynamoDB PutItem/UpdateItem/DeleteItem/BatchWriteItem/TransactWriteItems: the request itself,
  journalled while ``DYNAMODB_LOCK`` is held across the write and its line, so journal order is
  apply order and replaying it re-applies the same writes to the same items;
- S3 PUT/POST/DELETE of objects (puts, copies, completed multipart uploads, deletes by version,
  DeleteObjects, browser-based uploads: POST Object): the key's versions after the write, read from
  moto's store (version ids are moto's own and would differ on a replay, so the result is kept, not the request);
- SQS sends, deletes and purges: the queue's messages after the write.

Only a 2xx answer is journalled: a refused conditional write changed nothing. A POST Object is journalled once
moto has stored it, whatever moto answered (its ``success_action_*`` fields pick 204, 200, 201 or a 303 redirect);
the uploads ``local.aws.s3_post.policy`` refuses never reach moto, nor this middleware.
"""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import parse_qs
from xml.etree import ElementTree

from local.aws.emulator import DYNAMODB_LOCK
from local.aws.state.restore import ACCOUNT
from local.aws.state.store import StateStore, Versions

DYNAMODB_WRITES = {"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"}
SQS_WRITES = {"SendMessage", "SendMessageBatch", "DeleteMessage", "DeleteMessageBatch", "PurgeQueue"}
# The object headers an S3 GET gives back, so a restored object answers as the original did.
KEPT_HEADERS = ("content-type", "content-disposition", "content-encoding", "content-language", "cache-control")
_posted = threading.local()  # .keys: the (bucket, key) of each object moto stored during this thread's write


def _read_body(environ: dict[str, Any]) -> bytes:
    """The request body, read once and put back for moto (Content-Length or chunked framing)."""
    from werkzeug.wsgi import get_input_stream

    body = get_input_stream(environ).read()
    environ["wsgi.input"] = io.BytesIO(body)
    environ["CONTENT_LENGTH"] = str(len(body))
    environ.pop("HTTP_TRANSFER_ENCODING", None)
    environ["wsgi.input_terminated"] = False
    return body


def _versions(store: StateStore, versions: Iterable[Any]) -> Versions:
    kept: Versions = []
    for version in versions:
        if type(version).__name__ == "FakeDeleteMarker":
            kept.append({"deleteMarker": True})
            continue
        headers = {k: v for k, v in version.metadata.items() if k in KEPT_HEADERS or k.startswith("x-amz-meta-")}
        kept.append({"blob": store.put_blob(version.value), "headers": headers})
    return kept


class StateCapture:
    """``StateCapture(store, buckets, region)(app)`` is moto's app with its writes journalled."""

    def __init__(self, store: StateStore, buckets: set[str], region: str):
        self.store = store
        self.buckets = buckets
        self.region = region
        self.recording = False  # off while the saved state is replayed into a fresh moto
        self._objects_lock = threading.RLock()  # S3 and SQS writes: the write and the state read after it

    def __call__(self, app: Callable) -> Callable:
        _note_posted_keys()

        def journalled(environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
            record = self._recorder(environ) if self.recording else None
            if record is None:
                return app(environ, start_response)
            lock, after = record
            with lock:
                _posted.keys = []
                try:
                    status, headers, body = _call(app, environ)
                    after(status)
                finally:
                    _posted.keys = None
            start_response(status, headers)
            return [body]

        return journalled

    def _recorder(self, environ: dict[str, Any]) -> tuple[Any, Callable[[str], None]] | None:
        """For a write: the lock to hold and what to journal given moto's answer's status; None for a read."""
        target = environ.get("HTTP_X_AMZ_TARGET", "")
        service, _, action = target.partition(".")
        if service.startswith("DynamoDB_") and action in DYNAMODB_WRITES:
            body = _read_body(environ).decode()
            return DYNAMODB_LOCK, _if_2xx(lambda: self.store.append({"dynamodb": target, "body": body}))
        if service == "AmazonSQS" and action in SQS_WRITES:
            queue = json.loads(_read_body(environ) or b"{}").get("QueueUrl", "").rsplit("/", 1)[-1]
            return self._objects_lock, _if_2xx(lambda: self._journal_queue(queue))
        method = environ["REQUEST_METHOD"]
        if target or method not in ("PUT", "POST", "DELETE"):
            return None
        path = environ.get("PATH_INFO", "").encode("latin-1").decode("utf-8", "replace")
        bucket, _, key = path.lstrip("/").partition("/")
        if bucket not in self.buckets:
            return None
        query = parse_qs(environ.get("QUERY_STRING", ""), keep_blank_values=True)
        if not key:
            if method == "POST" and "delete" in query:  # DeleteObjects
                keys = _deleted_keys(_read_body(environ))
                return self._objects_lock, _if_2xx(lambda: self._journal_objects(bucket, keys))
            if method == "POST":  # POST Object: its key is in the form, found where moto stores it
                return self._objects_lock, lambda _status: self._journal_posted()
            return None  # bucket settings come from the template at every start
        if "uploads" in query or ("uploadId" in query and method != "POST"):
            return None  # a multipart upload's parts are not an object until it completes
        return self._objects_lock, _if_2xx(lambda: self._journal_objects(bucket, [key]))

    def _journal_objects(self, bucket: str, keys: list[str]) -> None:
        store = self._s3().buckets[bucket].keys
        for key in keys:
            line = {"s3": bucket, "key": key, "versions": _versions(self.store, store.getlist(key, []))}
            self.store.append(line)

    def _journal_posted(self) -> None:
        for bucket, key in _posted.keys:
            self._journal_objects(bucket, [key])

    def _journal_queue(self, queue: str) -> None:
        messages = self._sqs().queues.get(queue)
        bodies = [m.body for m in messages._messages] if messages else []
        self.store.append({"queue": queue, "bodies": bodies})

    def _s3(self) -> Any:
        from moto.s3.models import s3_backends

        return s3_backends[ACCOUNT]["aws"]

    def _sqs(self) -> Any:
        from moto.sqs.models import sqs_backends

        return sqs_backends[ACCOUNT][self.region]

    def current(self) -> tuple[dict[str, list], dict[tuple[str, str], Versions], dict[str, list]]:
        """Everything moto holds now (items, object versions, queued messages), for the next snapshot."""
        from moto.dynamodb.models import dynamodb_backends

        with DYNAMODB_LOCK:
            tables = dynamodb_backends[ACCOUNT][self.region].tables
            items = {name: [i.to_json()["Attributes"] for i in table.all_items()] for name, table in tables.items()}
        with self._objects_lock:
            objects = {
                (name, key): _versions(self.store, bucket.keys.getlist(key))
                for name, bucket in self._s3().buckets.items()
                if name in self.buckets
                for key in list(bucket.keys.keys())
            }
            queues = {name: [m.body for m in queue._messages] for name, queue in self._sqs().queues.items()}
        return items, objects, queues


def _if_2xx(journal: Callable[[], None]) -> Callable[[str], None]:
    return lambda status: journal() if status.startswith("2") else None


def _note_posted_keys() -> None:
    """Have moto's ``S3Backend.put_object`` note each object it stores during a journalled write (once per process).

    ``local.aws.s3_post.policy`` reads a POST Object's key as S3 does (field names in any case, a repeated field's
    values joined by commas, ``${filename}`` from the name after the last / or \\), moto as it does (the first
    field spelt ``key``, ``${filename}`` from ``os.path.basename``): they can differ. The journal keeps moto's
    state, so it takes the key where moto stores it rather than parsing the form a third way.
    """
    from moto.s3.models import S3Backend

    put = S3Backend.put_object
    if getattr(put, "notes_posted_keys", False):
        return

    def noting(backend: Any, *args: Any, **kwargs: Any) -> Any:
        stored = put(backend, *args, **kwargs)
        if (keys := getattr(_posted, "keys", None)) is not None:
            keys.append((stored.bucket_name, stored.name))
        return stored

    noting.notes_posted_keys = True  # type: ignore[attr-defined]
    S3Backend.put_object = noting  # type: ignore[method-assign,assignment]  # a patch of moto's own method


def _call(app: Callable, environ: dict[str, Any]) -> tuple[str, list[tuple[str, str]], bytes]:
    """Run moto's app to the end of its answer (writes answer small bodies)."""
    answered: dict[str, Any] = {}
    written: list[bytes] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable:
        answered.update(status=status, headers=headers)
        return written.append

    result = app(environ, start_response)
    try:
        written.extend(result)
    finally:
        if hasattr(result, "close"):
            result.close()
    return answered["status"], answered["headers"], b"".join(written)


def _deleted_keys(body: bytes) -> list[str]:
    # The request of a local function, already parsed and applied by moto (which took the same risk).
    root = ElementTree.fromstring(body)  # noqa: S314
    return [element.text or "" for element in root.iter() if element.tag.rsplit("}", 1)[-1] == "Key"]
