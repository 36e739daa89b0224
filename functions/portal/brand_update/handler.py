"""PATCH /api/workspaces/{workspaceId}/brands/{brandId}: change a brand; owner or admin. 200 {brand}.

``isDefault: true`` makes it the default (the old default's flag goes in the same write); the default's own
``isDefault: false`` is 409 (make another brand the default instead). Honours ``Idempotency-Key``.
"""

from core.brands import providers as brands
from core.brands.writer_models import BrandUpdate
from core.http import as_writer, author, json_response, parse_body, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound, ValidationFailed

app = portal_api()


@app.patch("/api/workspaces/<workspaceId>/brands/<brandId>")
@contract(
    "Change a brand",
    body=BrandUpdate,
    response="brands.writer_models.BrandEnvelope",
    errors=(NotFound, Forbidden, ValidationFailed, Conflict),
    request_headers=("Idempotency-Key",),
)
def update_brand(workspaceId: str, brandId: str):
    writer = author(app)
    request = parse_body(app, BrandUpdate, first=as_writer(app, workspaceId))
    return json_response(brands.writer().update(writer, workspaceId, brandId, request))


def lambda_handler(event, context):
    return app.resolve(event, context)
