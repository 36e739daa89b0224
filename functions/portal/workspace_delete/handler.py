"""DELETE /api/workspaces/{workspaceId}: owner only; {deleted: true}.

Gone at once for every API and its keys refused; content and records are purged
in the background (the purge queue).
"""

from core.http import json_response, portal_api, portal_caller
from core.platform.contract import contract
from core.platform.errors import Forbidden, NotFound
from core.purge import providers as purge

app = portal_api()


@app.delete("/api/workspaces/<workspaceId>")
@contract("Delete a workspace, permanently", response="platform.envelopes.Deleted", errors=(NotFound, Forbidden))
def delete_workspace(workspaceId: str):
    purge.deletion().delete(portal_caller(app).user_id, workspaceId)
    return json_response({"deleted": True})


def lambda_handler(event, context):
    return app.resolve(event, context)
