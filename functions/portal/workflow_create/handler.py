"""POST /api/workspaces/{workspaceId}/workflows {name, suggestions?}: 201 {workflow}; owner or admin.

``suggestions`` is any JSON value (at most 64 KiB): what ``GET /v1/agent/{agentId}/suggestions`` serves for the
agents whose active workflow it is. Honours ``Idempotency-Key``.
"""

from core.http import as_writer, author, json_response, parse_body, portal_api
from core.platform.contract import contract
from core.platform.errors import Conflict, Forbidden, NotFound, ValidationFailed
from core.workflows import providers as workflows
from core.workflows.writer_models import WorkflowCreate

app = portal_api()


@app.post("/api/workspaces/<workspaceId>/workflows")
@contract(
    "Create a workflow",
    body=WorkflowCreate,
    response="workflows.writer_models.WorkflowEnvelope",
    status=201,
    errors=(NotFound, Forbidden, ValidationFailed, Conflict),
    request_headers=("Idempotency-Key",),
)
def create_workflow(workspaceId: str):
    writer = author(app, status=201)
    request = parse_body(app, WorkflowCreate, first=as_writer(app, workspaceId))
    return json_response(workflows.writer().create(writer, workspaceId, request), status=201)


def lambda_handler(event, context):
    return app.resolve(event, context)
