"""The Docker-free local runner: moto, resources from template.yaml, demo data, both planes over HTTP.

``python -m local`` (``__main__``) starts ``runner`` (the composition root: the one module that imports every
subpackage) and waits in the main thread for a stop signal (``stopping``). The subpackages, none of which imports
``runner`` or another's internals backwards:

- ``aws``: moto's server with the template's resources, the kept state, and S3's POST policy checks in front of moto;
- ``containers``: emulated Lambda containers (buffered and streaming), their bounds, the Runtime API, the worker;
- ``gateway``: API Gateway (REST) per API: routing, the proxy event, refusals, the HTTP server, sample events;
- ``triggers``: what invokes a function besides a request: SQS event sources and schedules;
- ``demo``: the demo data, its brand page and the page's key.

What other code needs of the stack (reading template.yaml, the OpenAPI documents, starting this runner as a child
process) is the ``stack`` package, which imports nothing from here.
"""
