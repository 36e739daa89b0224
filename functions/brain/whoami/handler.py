"""GET /v1/agent/_whoami: which workspace and key the bearer resolves to."""

from core.http import brain_api, json_response, workspace_caller
from core.keys.models import WhoAmI
from core.platform.contract import contract

app = brain_api()


@app.get("/v1/agent/_whoami")
@contract("Which workspace and key the bearer resolves to", response=WhoAmI)
def whoami():
    caller = workspace_caller(app)
    return json_response(WhoAmI(workspace_id=caller.workspace_id, api_key_id=caller.api_key_id))


def lambda_handler(event, context):
    return app.resolve(event, context)
