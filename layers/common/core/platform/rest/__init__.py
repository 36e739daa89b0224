"""The pieces of the HTTP factory (``core.http``, the one module handlers import from).

- ``responses``: JSON and streamed responses, the error answer
- ``requests``: a request's body, query and headers, read into models
- ``boundary``: the middleware every resolver runs (size, media type, credential, errors, CORS)
- ``router``: the REST resolver itself (routes, middleware, the proxy result), ours rather than Powertools'
- ``resolver``: the observed resolver with that middleware and the 404/405 answers
"""
