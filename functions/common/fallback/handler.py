"""Whatever API Gateway did not route: 404 NOT_FOUND, or 405 METHOD_NOT_ALLOWED on a known path.

Bound to ``/{proxy+}`` (any unknown path) and to ``ANY`` on every known path (an
explicit method on the same path wins in API Gateway, so only the wrong ones land here).
"""

from core.http import fallback_api

app = fallback_api()


def lambda_handler(event, context):
    return app.resolve(event, context)
