"""POST /v1/media-urls {paths, expiresIn?}: short-lived signed /v1/r2 URLs, for elements that cannot send a header.

``<img>`` and ``<video>`` cannot send ``Authorization``, and a raw key must never travel in
a URL; a page asks here, with its key, for URLs that carry an expiry and a signature bound to
the path and the key (so to its workspace). Paths are checked as ``/v1/r2`` checks them (400
INVALID_PATH, 403 PREFIX_NOT_ALLOWED, for the whole request); objects are not looked up.
"""

from core.http import brain_api, json_response, parse_body, workspace_caller
from core.objects import providers as objects
from core.objects.models import MediaUrls, MediaUrlsRequest
from core.objects.signed_urls import request_base_url
from core.platform.contract import contract
from core.platform.errors import InvalidPath, PrefixNotAllowed

app = brain_api()


@app.post("/v1/media-urls")
@contract("Signed, short-lived URLs to workspace objects", body=MediaUrlsRequest, response=MediaUrls,
          errors=(InvalidPath, PrefixNotAllowed))  # fmt: skip
def media_urls():
    request = parse_body(app, MediaUrlsRequest)
    event = app.current_event
    base_url = request_base_url(event.headers, event.get("requestContext"))
    urls = objects.signed_urls().issue(workspace_caller(app).api_key_id, request.paths, request.expires_in, base_url)
    return json_response(MediaUrls(urls=urls))


def lambda_handler(event, context):
    return app.resolve(event, context)
