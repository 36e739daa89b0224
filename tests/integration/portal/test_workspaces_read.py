"""Members-only reads: GET workspace, members, brands, keys metadata; the account."""

from __future__ import annotations

import pytest

from core.brands.records import BrandRecord
from core.brands.write_store import BrandStore
from core.platform.ids import new_id, now_iso
from core.platform.settings import get_settings
from core.platform.transactions import Also
from tests.support.portal import JSON, Portal, assert_error

MEMBER_ONLY = ["PortalWorkspaceGetFunction", "PortalMembersListFunction", "PortalBrandsListFunction",
               "PortalKeysListFunction"]  # fmt: skip


@pytest.mark.parametrize("function", MEMBER_ONLY)
def test_non_member_gets_the_same_404_as_for_an_unknown_id(portal: Portal, function: str) -> None:
    owner, stranger = portal.sign_in("owner@example.com"), portal.sign_in("stranger@example.com")
    ws = portal.create_workspace(owner)
    hidden = portal.call(function, token=stranger.token, params={"workspaceId": ws["id"]})
    unknown = portal.call(function, token=stranger.token, params={"workspaceId": "ws_01JDOESNOTEXIST0000000000"})
    assert_error(hidden, 404, "NOT_FOUND")
    assert (hidden.status, hidden.body) == (unknown.status, unknown.body)


@pytest.mark.parametrize("role", ["admin", "member"])
@pytest.mark.parametrize("function", MEMBER_ONLY)
def test_every_member_may_read(portal: Portal, function: str, role: str) -> None:
    owner, other = portal.sign_in("owner@example.com"), portal.sign_in("other@example.com")
    ws = portal.create_workspace(owner)
    portal.add_member(ws["id"], other.user_id, role)
    result = portal.call(function, token=other.token, params={"workspaceId": ws["id"]})
    assert (result.status, result.header("Content-Type")) == (200, JSON), result.body


def test_members_lists_everyone_oldest_first(portal: Portal) -> None:
    owner = portal.sign_in("owner@example.com")
    ws = portal.create_workspace(owner)
    admin = portal.seed_user("admin@example.com")
    portal.add_member(ws["id"], admin.id, "admin")
    result = portal.call("PortalMembersListFunction", token=owner.token, params={"workspaceId": ws["id"]})
    first, second = result.json()
    assert first == {
        "id": first["id"], "userId": owner.user_id, "workspaceId": ws["id"], "role": "owner",
        "email": "owner@example.com", "name": "", "image": "", "createdAt": ws["createdAt"],
    }  # fmt: skip
    assert second == {
        "id": second["id"], "userId": admin.id, "workspaceId": ws["id"], "role": "admin",
        "email": "admin@example.com", "name": "admin", "image": "", "createdAt": second["createdAt"],
    }  # fmt: skip
    assert first["id"].startswith("mem_") and first["createdAt"] <= second["createdAt"]


def test_brands_list_the_default_brand_first(portal: Portal) -> None:
    owner = portal.sign_in("owner@example.com")
    ws = portal.create_workspace(owner, "Acme Shop")
    extra = BrandRecord(id=new_id("brd"), workspace_id=ws["id"], slug="aaa-early", name="Another",
                        palette=["#000000"], font_family="Inter", created_at="2000-01-01T00:00:00.000Z",
                        updated_at=now_iso())  # fmt: skip
    BrandStore(portal.aws.dynamodb, get_settings().main_table).create(extra, default_was=None, also=Also())
    result = portal.call("PortalBrandsListFunction", token=owner.token, params={"workspaceId": ws["id"]})
    default, other = result.json()
    assert default == {
        "id": ws["defaultBrandId"], "slug": "acme-shop", "name": "Acme Shop", "isDefault": True, "palette": [],
        "fontFamily": "", "createdAt": ws["createdAt"], "updatedAt": ws["createdAt"],
    }  # fmt: skip
    assert other == {
        "id": extra.id, "slug": "aaa-early", "name": "Another", "isDefault": False, "palette": ["#000000"],
        "fontFamily": "Inter", "createdAt": extra.created_at, "updatedAt": extra.updated_at,
    }  # fmt: skip


def test_a_members_list_shows_their_role(portal: Portal) -> None:
    owner, member = portal.sign_in("owner@example.com"), portal.sign_in("member@example.com")
    ws = portal.create_workspace(owner)
    portal.add_member(ws["id"], member.user_id, "member")
    (summary,) = portal.call("PortalWorkspacesListFunction", token=member.token).json()
    assert (summary["id"], summary["role"], summary["ownerId"]) == (ws["id"], "member", owner.user_id)


def test_account_shape(portal: Portal) -> None:
    session = portal.sign_in("me@example.com")
    result = portal.call("PortalAccountFunction", token=session.token)
    assert (result.status, result.header("Content-Type")) == (200, JSON)
    account = result.json()
    assert account == {
        "id": session.user_id, "email": "me@example.com", "name": "", "image": "", "role": "user",
        "workspaceId": None, "createdAt": account["createdAt"],
    }  # fmt: skip
    ws = portal.create_workspace(session)
    assert portal.call("PortalAccountFunction", token=session.token).json() == account | {"workspaceId": ws["id"]}


def test_unknown_workspace_id_of_any_shape_is_404(portal: Portal) -> None:
    session = portal.sign_in("me@example.com")
    for workspace_id in ("x", "WS#", "ws_" + "0" * 200, "%00", "..%2F"):
        result = portal.call("PortalWorkspaceGetFunction", token=session.token, params={"workspaceId": workspace_id})
        assert_error(result, 404, "NOT_FOUND")
