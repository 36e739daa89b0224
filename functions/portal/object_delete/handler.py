"""DELETE /api/workspaces/{workspaceId}/objects/{path+}: {}; owner or admin.

The object stops being served at once (the bucket keeps its old version for its lifecycle's days). The path
follows the r2 rules and allowlist (400 INVALID_PATH, 403 PREFIX_NOT_ALLOWED). Honours ``Idempotency-Key``.
"""

from core.http import author, json_response, portal_api
from core.objects import providers as objects
from core.objects.paths import key_in_request_path
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, InvalidPath, NotFound, PrefixNotAllowed
from core.platform.settings import ALLOWED_R2_PREFIXES

app = portal_api()


# A regex: the key may span many segments (API Gateway's {path+}).
@app.delete("/api/workspaces/<workspaceId>/objects/.+")
@contract(
    "Delete an object",
    response="platform.envelopes.Empty",
    errors=(NotFound, Forbidden, InvalidPath, PrefixNotAllowed, Conflict),
    request_headers=("Idempotency-Key",),
    path="/api/workspaces/{workspaceId}/objects/{path+}",
    path_values={"path": ALLOWED_R2_PREFIXES},
)
def delete_object(workspaceId: str):
    writer = author(app)
    path = key_in_request_path(app.current_event.path, f"/{workspaceId}/objects/")
    return json_response(objects.writer().delete(writer, workspaceId, path))


def lambda_handler(event, context):
    return app.resolve(event, context)
