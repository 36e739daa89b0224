"""GET /api/workspaces/{workspaceId}/objects/{path+}: {object, url, expiresAt}; members only.

The object's metadata and a presigned S3 GET of it, valid five minutes. The path follows the r2 rules and
allowlist (400 INVALID_PATH, 403 PREFIX_NOT_ALLOWED).
"""

from core.http import json_response, portal_api, portal_caller
from core.objects import providers as objects
from core.objects.paths import key_in_request_path
from core.platform.contract import contract
from core.platform.errors import InvalidPath, NotFound, PrefixNotAllowed
from core.platform.settings import ALLOWED_R2_PREFIXES

app = portal_api()


# A regex: the key may span many segments (API Gateway's {path+}).
@app.get("/api/workspaces/<workspaceId>/objects/.+")
@contract(
    "An object, with a download URL",
    response="objects.writer_models.ObjectDownload",
    errors=(NotFound, InvalidPath, PrefixNotAllowed),
    path="/api/workspaces/{workspaceId}/objects/{path+}",
    path_values={"path": ALLOWED_R2_PREFIXES},
)
def download_object(workspaceId: str):
    path = key_in_request_path(app.current_event.path, f"/{workspaceId}/objects/")
    return json_response(objects.reader().download(portal_caller(app).user_id, workspaceId, path))


def lambda_handler(event, context):
    return app.resolve(event, context)
