"""What every resource package uses: settings (the one pydantic model of the environment), errors
(``DomainError``: status + code), ids, AWS clients (``aws``), the DynamoDB codec (``dynamo``), the main table's key
layout (``main_table``), transactions and optimistic versions, idempotency, the sliding-window rate limit, the REST
pieces behind ``core.http`` (``rest/``), observability, the Lambda runtime (``lambda_runtime/``: streaming, SnapStart),
the per-container registry and ``providers`` (``reset()``, idempotency, the signing secrets). It imports no resource.
"""
