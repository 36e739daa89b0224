"""GET|HEAD /v1/r2/{path+}: a workspace object, streamed (ResponseTransferMode: RESPONSE_STREAM).

``path`` is relative to the key's workspace and must start with an allowlisted prefix.
Honours one ``Range`` (206, or 416 when unsatisfiable), ``If-Range``, ``If-None-Match`` (304);
an object larger than one response may carry is a 307 to S3.

Without ``Authorization``, a URL from ``POST /v1/media-urls`` (``?expires=&kid=&sig=``) is served
the same way for its key's workspace, cached no longer than it lives; an expired one is 403
SIGNED_URL_EXPIRED, any other bad one 403 SIGNED_URL_INVALID. With ``Authorization`` the
signature's parameters are ignored: the request is a keyed one.
"""

from core.http import brain_api, header, stream_response, workspace_caller
from core.objects import providers as objects
from core.objects.service import nosniff, object_path
from core.platform.contract import contract
from core.platform.errors import (
    InvalidPath,
    NotFound,
    PrefixNotAllowed,
    RangeNotSatisfiable,
    SignedUrlExpired,
    SignedUrlInvalid,
)
from core.platform.settings import ALLOWED_R2_PREFIXES

app = brain_api(signed_media=True)


@app.get("/v1/r2.*")  # a regex: the key may span many segments (API Gateway's {path+})
@app.head("/v1/r2.*")
@contract(
    "A workspace object, streamed",
    path="/v1/r2/{path+}",
    path_values={"path": ALLOWED_R2_PREFIXES},  # prefixes: any other is 403 PREFIX_NOT_ALLOWED
    media_type="*/*",  # the object's own Content-Type
    statuses={206: "One range of the object", 304: "Not modified (If-None-Match)", 307: "Too large: fetch it from S3"},
    errors=(InvalidPath, PrefixNotAllowed, NotFound, RangeNotSatisfiable, SignedUrlExpired, SignedUrlInvalid),
    request_headers=("Range", "If-Range", "If-None-Match"),
    response_headers={
        200: ("ETag", "Last-Modified", "Cache-Control", "Accept-Ranges", "Content-Length"),
        206: ("ETag", "Last-Modified", "Cache-Control", "Accept-Ranges", "Content-Length", "Content-Range"),
        304: ("ETag", "Cache-Control"),
        307: ("Location", "Cache-Control"),
        416: ("Content-Range",),
    },
)
@contract("No object key: always 400 INVALID_PATH", path="/v1/r2", errors=(InvalidPath,), status=None)
def get_object():
    caller = workspace_caller(app)
    reply = objects.media().fetch(
        caller.workspace_id,
        object_path(app.current_event.path),
        range_header=header(app, "Range"),
        if_range=header(app, "If-Range"),
        if_none_match=header(app, "If-None-Match"),
        head=app.current_event.http_method == "HEAD",
        cache_until=caller.signed_until,
    )
    return stream_response(reply.status, reply.headers, reply.body)


def lambda_handler(event, context):
    # Every answer is nosniff, errors included (a refused key, an unknown object: answered before any route runs).
    # An object neither media nor plain text is an attachment named by its key (core.objects.media_types).
    return nosniff(app.resolve(event, context))
