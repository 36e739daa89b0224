"""GET /api/workspaces: the caller's workspaces (summaries with their role and member count)."""

from core.http import json_response, portal_api, portal_caller
from core.platform.contract import contract
from core.workspaces import providers as workspaces
from core.workspaces.models import WorkspaceSummary

app = portal_api()


@app.get("/api/workspaces")
@contract("The caller's workspaces", response=list[WorkspaceSummary])
def list_workspaces():
    return json_response(workspaces.service().list_for(portal_caller(app).user_id))


def lambda_handler(event, context):
    return app.resolve(event, context)
