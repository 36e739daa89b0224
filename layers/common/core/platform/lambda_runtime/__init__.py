"""What the code needs of the Lambda execution environment, apart from the application's modules.

- ``loop``: our Runtime API loop (``python -m core.platform.lambda_runtime``, see ``__main__``, started by the layer's
  ``stream-bootstrap``), which the streaming functions run instead of the managed runtime's, and
  ``context``, the ``context`` argument it builds for each invocation.
- ``response_stream``: the streamed response format API Gateway reads (a prelude, then the body in chunks);
  handlers import it on their cold path, so it and this file import nothing beyond the standard library.
- ``chunked_post``: the chunked POST with trailers that carries a streamed response to the Runtime API.
- ``snapstart``: the SnapStart lifecycle (what init may prepare, what each restored environment renews).

docs/streaming.md explains why the streaming functions need their own loop.
"""
