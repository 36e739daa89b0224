"""GET /api/workspaces: the caller's workspaces (summaries with their role and member count)."""

from core import deps
from core.contract import contract
from core.http import json_response, portal_api, portal_caller
from core.models.management import WorkspaceSummary

app = portal_api()


@app.get("/api/workspaces")
@contract("The caller's workspaces", response=list[WorkspaceSummary])
def list_workspaces():
    return json_response(deps.workspaces().list_for(portal_caller(app).user_id))


def lambda_handler(event, context):
    return app.resolve(event, context)
