"""POST /api/workspaces/{workspaceId}/uploads {path, contentType, size}: 201 {url, fields, path, expiresAt}.

A presigned S3 POST: send ``fields`` and then the file (the form's last field, ``file``) to ``url``, before
``expiresAt`` (15 minutes). Its policy fixes the exact key, content type and size. ``path`` is workspace-relative
and follows the r2 rules (400 INVALID_PATH) and allowlist (403 PREFIX_NOT_ALLOWED); a ``projects/<agentId>/`` path
names an agent of this workspace. Over the owner's plan's object size, or its storage, is 402
STORAGE_LIMIT_REACHED. Owner or admin. Honours ``Idempotency-Key``.
"""

from core.http import as_writer, author, json_response, parse_body, portal_api
from core.objects import providers as objects
from core.objects.writer_models import UploadRequest
from core.platform.contract import contract
from core.platform.errors import (
    Conflict,
    Forbidden,
    InvalidPath,
    NotFound,
    PrefixNotAllowed,
    StorageLimitReached,
    ValidationFailed,
)

app = portal_api()


@app.post("/api/workspaces/<workspaceId>/uploads")
@contract(
    "Sign an upload",
    body=UploadRequest,
    response="objects.writer_models.UploadTicket",
    status=201,
    errors=(NotFound, Forbidden, ValidationFailed, InvalidPath, PrefixNotAllowed, StorageLimitReached, Conflict),
    request_headers=("Idempotency-Key",),
)
def create_upload(workspaceId: str):
    writer = author(app, status=201)
    request = parse_body(app, UploadRequest, first=as_writer(app, workspaceId))
    return json_response(objects.uploads().sign(writer, workspaceId, request), status=201)


def lambda_handler(event, context):
    return app.resolve(event, context)
