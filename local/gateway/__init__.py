"""A local API Gateway (REST) per API of the template.

- ``api``: routes, CORS preflight, gateway responses and 502s, each request handed to its function's container;
- ``routing``: API Gateway's route precedence and the v1 proxy event it hands to a function;
- ``http_server``: the HTTP side (framing, API Gateway's request limits, the access log, ``serve``);
- ``refusals``: the JSON refusals before any function runs, and a body reader that never trusts the client's framing;
- ``events``: ``python -m local.gateway.events`` writes ``events/``, one sample proxy event per function.
"""
