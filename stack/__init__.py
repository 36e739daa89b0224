"""The stack as code outside the runner needs it: template.yaml read, what is generated from it, and the local
runner started as a child process. Imports nothing from ``local`` (the runner imports from here).

- ``template``: reading template.yaml (tables, bucket, functions, environment, routes), the one source of truth;
- ``api_gateway``: API Gateway's quotas, routed methods and the service's code for each status it refuses with;
- ``openapi``: ``python -m stack.openapi`` writes (``--check``: checks) ``docs/openapi/{portal,brain}.json``;
- ``route_table``: ``python -m stack.route_table`` writes ``layers/common/core/routes.json`` (the fallback's 405s);
- ``process``: ``python -m local`` as a child process, for the tests, benches and ops (``demo_template``: a published
  demo to start it from; ``process_tree``: the processes it started, read from /proc).
"""
