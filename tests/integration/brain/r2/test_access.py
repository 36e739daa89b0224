"""What r2 refuses: missing objects, bad paths, prefixes outside the allowlist, other workspaces, bad credentials."""

from __future__ import annotations

import pytest

from local.gateway.events import SAMPLE_WORKSPACE_ID
from tests.support.brain import UNAUTHORIZED
from tests.support.r2 import assert_error, get, put

pytestmark = pytest.mark.usefixtures("small_chunks")


def test_a_missing_object_is_404(tenant) -> None:
    assert_error(get("assets/nothing-here.png"), 404, "NOT_FOUND")
    assert_error(get("assets/nothing-here.png", method="HEAD"), 404, "NOT_FOUND")


@pytest.mark.parametrize(
    "raw_path",
    ["/v1/r2", "/v1/r2/", "/v1/r2/assets/../private/x", "/v1/r2/assets/%2e%2e/private/x", "/v1/r2/assets//x",
     "/v1/r2/%2Fworkspaces/x", "/v1/r2/assets/a%5Cb", "/v1/r2/assets/a%0Db"],
)  # fmt: skip
def test_bad_paths_are_400(tenant, raw_path: str) -> None:
    assert_error(get(raw_path=raw_path), 400, "INVALID_PATH")


@pytest.mark.parametrize("path", ["conversations/prj_1/t/turn.json", "billing/invoice.pdf", "private/x", "x.png"])
def test_prefixes_outside_the_allowlist_are_403(tenant, aws, path: str) -> None:
    put(aws, SAMPLE_WORKSPACE_ID, path, b"secret")
    assert_error(get(path), 403, "PREFIX_NOT_ALLOWED")


def test_another_workspaces_objects_are_out_of_reach(tenant, rival, aws) -> None:
    put(aws, rival.ws.id, "assets/rival.png", b"rival")
    assert_error(get("assets/rival.png"), 404, "NOT_FOUND")  # read under the key's own workspace
    assert_error(get(f"workspaces/{rival.ws.id}/assets/rival.png"), 403, "PREFIX_NOT_ALLOWED")
    assert get("assets/rival.png", headers={"Authorization": f"Bearer {rival.key}"}).body == b"rival"


@pytest.mark.parametrize("credential", [None, "sk_ws_unknown", "eyJhbGciOiJIUzI1NiJ9.e30.sig"])
def test_a_bad_credential_is_401(video: str, credential: str | None) -> None:
    auth = f"Bearer {credential}" if credential else None
    result = get("projects/prj_1/media/clip.mp4", headers={"Authorization": auth})
    assert (result.status, result.json()) == (401, UNAUTHORIZED)
