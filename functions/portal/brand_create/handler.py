"""POST /api/workspaces/{workspaceId}/brands {name, slug?, palette?, fontFamily?, isDefault?}: 201 {brand}.

Owner or admin. The slug (from the name unless given) is unique in the workspace (409); ``isDefault: true``
makes it the workspace's default brand in the same write. Honours ``Idempotency-Key``.
"""

from core.brands import providers as brands
from core.brands.writer_models import BrandCreate
from core.http import as_writer, author, json_response, parse_body, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound, ValidationFailed

app = portal_api()


@app.post("/api/workspaces/<workspaceId>/brands")
@contract(
    "Create a brand",
    body=BrandCreate,
    response="brands.writer_models.BrandEnvelope",
    status=201,
    errors=(NotFound, Forbidden, ValidationFailed, Conflict),
    request_headers=("Idempotency-Key",),
)
def create_brand(workspaceId: str):
    writer = author(app, status=201)
    request = parse_body(app, BrandCreate, first=as_writer(app, workspaceId))
    return json_response(brands.writer().create(writer, workspaceId, request), status=201)


def lambda_handler(event, context):
    return app.resolve(event, context)
