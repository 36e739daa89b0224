"""GET /v1/agent/_whoami: which workspace and key the bearer resolves to."""

from core.contract import contract
from core.http import brain_api, json_response, workspace_caller
from core.models.read_plane import WhoAmI

app = brain_api()


@app.get("/v1/agent/_whoami")
@contract("Which workspace and key the bearer resolves to", response=WhoAmI)
def whoami():
    caller = workspace_caller(app)
    return json_response(WhoAmI(workspace_id=caller.workspace_id, api_key_id=caller.api_key_id))


def lambda_handler(event, context):
    return app.resolve(event, context)
