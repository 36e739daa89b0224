"""GET /api/models: the models this deployment offers (any signed-in user), 200 {models: [{id, name, provider,
creditsPerTurn, contextTokens, default}]}. Read from the deployment's list (``CHAT_MODELS``), no table."""

from core.chat.model_list import ModelList, model_list
from core.http import json_response, portal_api
from core.platform.contract import contract

app = portal_api()


@app.get("/api/models")
@contract("The deployment's models", response=ModelList)
def list_models():
    return json_response(model_list())


def lambda_handler(event, context):
    return app.resolve(event, context)
