"""``workspace-client``: help and usage, the session file (owner-only, atomic), and login → publish → export as a
person runs them: the installed console script in a subprocess, signed in through the runner's outbox with the
mailed link piped to its stdin."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from workspace_client import Portal
from workspace_client.bundle import load_bundle
from workspace_client.bundle.session import Session, SessionError, load, save
from workspace_client.cli import main

from tests.support import log_scan
from tests.support.bundles import FILES, POSTS, mailed_link, mails, signed_in, started_service_without_demo
from tests.support.load import ops
from tests.support.runner import LocalService, invitation_link

SCRIPT = Path(sys.executable).parent / "workspace-client"


def cli(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SCRIPT, *map(str, args)], capture_output=True, text=True, env=env, timeout=120, check=False)


def small_bundle(root: Path) -> Path:
    """One agent, one post, one file: few functions to call, so few cold starts."""
    (root / "media").mkdir(parents=True)
    (root / "agent.json").write_text(json.dumps({"slug": "cli-barista", "name": "CLI Barista"}))
    (root / "posts.json").write_text(json.dumps([POSTS[0] | {"key": "media/a.jpg"}]))
    (root / "media" / "a.jpg").write_bytes(FILES["media/a.jpg"])
    return root


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- without a runner


@pytest.mark.parametrize(
    "command",
    [[], ["login"], ["publish"], ["export"], ["workspaces", "list"], ["keys", "mint"], ["agents", "list"], ["audit"],
     ["members", "transfer"], ["invite"], ["invitations", "accept"], ["usage"], ["agents", "update"],
     ["agents", "try"], ["models"], ["knowledge", "search"]],
    ids=["main", "login", "publish", "export", "workspaces", "keys-mint", "agents", "audit", "members-transfer",
         "invite", "invitations-accept", "usage", "agents-update", "agents-try", "models", "knowledge-search"],
)  # fmt: skip
def test_the_help_of_each_command_exits_0(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main([*command, "--help"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: workspace-client {' '.join(command)}".rstrip())


def test_the_console_script_is_installed() -> None:
    done = cli("publish", "--help")
    assert done.returncode == 0 and "--dry-run" in done.stdout and "--workspace ID" in done.stdout


@pytest.mark.parametrize(
    "argv",
    [
        ["publish", "bundle"],
        ["frobnicate"],
        ["export", "--workspace", "ws_1", "out"],
        ["usage", "--workspace", "ws_1"],
        ["usage", "--workspace", "ws_1", "--key", "key_1", "--agent", "prj_1"],
    ],
)
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2 and "usage: workspace-client" in capsys.readouterr().err


def test_without_a_session_a_command_says_to_log_in(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bundle = small_bundle(tmp_path / "b")
    assert main(["publish", str(bundle), "--workspace", "ws_1", "--session-file", str(tmp_path / "none.json")]) == 1
    assert (
        capsys.readouterr().err
        == f"workspace-client: not signed in (no {tmp_path / 'none.json'}): run workspace-client login\n"
    )


def test_a_bundle_error_exits_1_naming_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bundle = small_bundle(tmp_path / "b")
    (bundle / "posts.json").write_text(json.dumps([POSTS[0] | {"key": "media/gone.jpg"}]))
    assert main(["publish", str(bundle), "--workspace", "ws_1"]) == 1  # refused before a session is even read
    assert (
        "posts.json[0] (createdAt 2026-01-02T03:04:05.000Z): key: media/gone.jpg is not a file"
        in capsys.readouterr().err
    )


def test_the_session_file_is_only_ever_its_owners(tmp_path: Path) -> None:
    path = tmp_path / "config" / "workspace-client" / "session.json"
    previous = os.umask(0)  # the loosest umask: the modes must not come from it
    try:
        save(path, Session("http://portal.test", "cookie", "jwt", "ava@example.com"))
    finally:
        os.umask(previous)
    assert (mode(path), mode(path.parent)) == (0o600, 0o700)
    assert load(path) == Session("http://portal.test", "cookie", "jwt", "ava@example.com")
    path.parent.chmod(0o755)  # the tool's folder, loosened by hand: tightened at the next save
    save(path, Session("http://portal.test", "cookie", "jwt2"))
    assert (mode(path), mode(path.parent), load(path).token) == (0o600, 0o700, "jwt2")
    assert sorted(p.name for p in path.parent.iterdir()) == ["session.json"]  # no temporary file left
    path.write_text("{")
    with pytest.raises(SessionError, match=r"is not a session file .*: run workspace-client login"):
        load(path)


# --- against a runner


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    yield from started_service_without_demo(tmp_path_factory.mktemp("cli-state"))


def wait_for_link(service: LocalService, email: str, before: set[Path]) -> str:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if any(json.loads(path.read_text())["to"] == email for path in mails(service) - before):
            return mailed_link(service, email, before)
        time.sleep(0.1)
    raise AssertionError(f"no mail to {email}")


@pytest.mark.e2e
def test_login_with_the_link_on_stdin_then_publish_and_export(service: LocalService, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "WORKSPACE_CLIENT_SESSION"}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    email, before = f"cli-{uuid.uuid4().hex[:12]}@example.com", mails(service)
    login = subprocess.Popen([SCRIPT, "login", "--portal", service.portal, "--email", email], env=env, text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    out, err = login.communicate(wait_for_link(service, email, before) + "\n", timeout=60)
    session_file = tmp_path / "config" / "workspace-client" / "session.json"
    assert login.returncode == 0, err
    assert out == f"Signed in as {email}; the session is kept in {session_file}\n"
    assert f"A sign-in link was mailed to {email}" in err
    assert (mode(session_file), mode(session_file.parent)) == (0o600, 0o700)
    saved = load(session_file)
    log_scan.register_secret(saved.session or "", saved.token or "")
    assert (saved.portal_url, saved.email) == (service.portal, email) and saved.session and saved.token

    with Portal(service.portal, session=saved.session) as portal:
        workspace = portal.create_workspace(name="CLI").workspace.id
    bundle = small_bundle(tmp_path / "bundle")
    dry = cli("publish", bundle, "--workspace", workspace, "--dry-run", env=env)
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.splitlines() == [
        "create agent cli-barista (CLI Barista)",
        "upload media/a.jpg (40.0 kB)",
        "create post 2026-01-02T03:04:05.000Z",
        "agent cli-barista: 1 upload (40.0 kB), 2 writes",
    ]
    published = cli("publish", bundle, "--workspace", workspace, "--no-progress", env=env)
    assert published.returncode == 0, published.stderr
    assert published.stdout == dry.stdout + f"published cli-barista to {workspace}\n"
    again = cli("publish", bundle, "--workspace", workspace, env=env)
    assert again.stdout == "agent cli-barista: up to date, nothing to do\n" and again.returncode == 0

    exported = cli("export", "--workspace", workspace, "--agent", "cli-barista", tmp_path / "copy", env=env)
    assert exported.returncode == 0, exported.stderr
    assert load_bundle(tmp_path / "copy").posts == load_bundle(bundle).posts
    assert (tmp_path / "copy" / "media" / "a.jpg").read_bytes() == FILES["media/a.jpg"]


@pytest.mark.e2e
def test_a_renewed_token_is_saved_back_and_refusals_show_the_service_code(
    service: LocalService, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    portal = signed_in(service, f"cli-{uuid.uuid4().hex[:12]}@example.com")
    workspace = portal.create_workspace(name="CLI").workspace.id
    path = tmp_path / "session.json"
    save(path, Session(service.portal, portal.session_cookie, None))  # the cookie only: a JWT is minted from it
    bundle = small_bundle(tmp_path / "bundle")
    assert main(["publish", str(bundle), "--workspace", workspace, "--dry-run", "--session-file", str(path)]) == 0
    renewed = load(path)
    assert renewed.token and renewed.session == portal.session_cookie and mode(path) == 0o600
    log_scan.register_secret(renewed.token)

    assert main(["publish", str(bundle), "--workspace", "ws_unknown", "--session-file", str(path)]) == 1
    assert (
        capsys.readouterr().err == "workspace-client: the service refused: Workspace not found (NOT_FOUND, HTTP 404)\n"
    )
    portal.close()


@pytest.mark.e2e
def test_a_workspace_is_run_from_the_terminal_alone(
    service: LocalService, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 28: create a workspace, mint a key for one origin, list keys and agents, read the audit log and revoke
    the key, with the CLI alone; lines for people (the id first), ``--json`` for scripts."""
    email = f"cli-{uuid.uuid4().hex[:12]}@example.com"
    portal = signed_in(service, email)
    ops(service, "set-plan", "--email", email, "--plan", "pro")  # keys need a multi-workspace plan
    path = tmp_path / "session.json"
    save(path, Session(service.portal, portal.session_cookie, None))
    portal.close()
    session = ["--session-file", str(path)]

    said: list[str] = []

    def run(*argv: str) -> str:
        status = main([*argv, *session])
        out, err = capsys.readouterr()
        assert status == 0, err
        said.append(err)
        return out

    workspace_id, name, slug = run("workspaces", "create", "From the terminal").rstrip("\n").split("\t")
    assert (workspace_id[:3], name, slug.startswith("from-the-terminal")) == ("ws_", "From the terminal", True)
    listed = json.loads(run("workspaces", "list", "--json"))
    assert [(w["id"], w["role"]) for w in listed if w["id"] == workspace_id] == [(workspace_id, "owner")]

    in_it = ["--workspace", workspace_id]
    minted = json.loads(run("keys", "mint", *in_it, "--name", "site", "--origin", "https://shop.example", "--json"))
    log_scan.register_secret(minted["key"])
    assert minted["allowedOrigins"] == ["https://shop.example"] and minted["key"].startswith("sk_ws_")
    assert "shown this once" in said[-1]
    assert run("keys", "list", *in_it).split("\t")[:3] == [minted["id"], "site", minted["prefix"]]
    assert run("agents", "list", *in_it) == ""  # a new workspace has none
    heading, *days = run("usage", *in_it, "--key", minted["id"], "--days", "2").splitlines()
    assert heading.split() == ["date", "requests", "chatTurns", "credits", "rateLimited"]  # a table with its names
    assert len(days) == 2 and all(line.split()[1:] == ["0", "0", "0", "0"] for line in days)  # date first
    assert len(json.loads(run("usage", *in_it, "--key", minted["id"], "--json"))) == 30
    assert run("keys", "revoke", *in_it, minted["id"]) == f"{minted['id']}\n"
    audit = json.loads(run("audit", *in_it, "--all", "--limit", "1", "--json"))
    assert [(e["action"], e["target"]) for e in audit] == [("key.revoke", f"key:{minted['id']}"),
                                                            ("key.mint", f"key:{minted['id']}")]  # fmt: skip
    assert main(["audit", "--workspace", "ws_unknown", *session]) == 1
    assert "(NOT_FOUND, HTTP 404)" in capsys.readouterr().err


@pytest.mark.e2e
def test_members_and_invitations_are_run_from_the_terminal(
    service: LocalService, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 28: invite an admin and a member (and revoke a third invitation), accept the mailed links (as an
    argument, and on stdin), change a role, remove a member, transfer the workspace and leave it, with the CLI alone,
    each person with their own session file; a refusal exits 1 with the service's code."""
    tag = uuid.uuid4().hex[:12]
    owner_email, admin_email, member_email = (f"cli-{who}-{tag}@example.com" for who in ("owner", "admin", "member"))

    def session_of(email: str) -> tuple[list[str], str]:
        portal = signed_in(service, email)
        path = tmp_path / f"{email}.json"
        save(path, Session(service.portal, portal.session_cookie, None))
        user_id = portal.get_account().id
        portal.close()
        return ["--session-file", str(path)], user_id

    def run(session: list[str], *argv: str, status: int = 0) -> tuple[str, str]:
        code = main([*argv, *session])
        out, err = capsys.readouterr()
        assert code == status, err
        return out, err

    owner, owner_id = session_of(owner_email)
    workspace_id = run(owner, "workspaces", "create", "Team")[0].split("\t")[0]
    in_it = ["--workspace", workspace_id]
    out, err = run(owner, "invite", admin_email, *in_it, "--role", "admin")
    invitation_id, email, role, _, invited_by = out.rstrip("\n").split("\t")
    assert (invitation_id[:4], email, role, invited_by) == ("inv_", admin_email, "admin", owner_id)
    assert f"a link was mailed to {admin_email}" in err
    gone = run(owner, "invite", f"cli-gone-{tag}@example.com", *in_it)[0].split("\t")[0]
    assert run(owner, "invitations", "revoke", *in_it, gone)[0] == f"{gone}\n"
    pending = json.loads(run(owner, "invitations", "list", *in_it, "--json")[0])
    assert [(i["id"], i["email"], i["role"]) for i in pending] == [(invitation_id, admin_email, "admin")]
    run(owner, "invite", member_email, *in_it)

    admin, admin_id = session_of(admin_email)
    joined = run(admin, "invitations", "accept", invitation_link(service, admin_email))[0]
    assert joined.split("\t")[:3] == [workspace_id, "admin", "Team"]
    member, member_id = session_of(member_email)
    monkeypatch.setattr("sys.stdin", io.StringIO(invitation_link(service, member_email) + "\n"))
    joined, err = run(member, "invitations", "accept", "--json")
    assert (json.loads(joined)["id"], json.loads(joined)["role"]) == (workspace_id, "member") and "Paste" in err
    listed = [line.split("\t")[:3] for line in run(owner, "members", "list", *in_it)[0].splitlines()]
    assert sorted(listed) == sorted([[owner_id, "owner", owner_email], [admin_id, "admin", admin_email],
                                     [member_id, "member", member_email]])  # fmt: skip

    assert run(owner, "members", "role", *in_it, admin_id, "member")[0].split("\t")[:2] == [admin_id, "member"]
    assert run(owner, "members", "role", *in_it, admin_id, "admin")[0].split("\t")[:2] == [admin_id, "admin"]
    refused = run(admin, "members", "role", *in_it, member_id, "admin", status=1)[1]
    assert "(FORBIDDEN, HTTP 403)" in refused  # only the owner makes admins
    assert "(CONFLICT, HTTP 409)" in run(owner, "members", "leave", *in_it, status=1)[1]  # the owner never leaves
    assert run(admin, "members", "remove", *in_it, member_id)[0] == f"{member_id}\n"
    assert "(NOT_FOUND, HTTP 404)" in run(member, "members", "list", *in_it, status=1)[1]  # no longer theirs

    out, err = run(owner, "members", "transfer", *in_it, admin_id)
    assert out.split("\t")[0] == workspace_id and f"now owned by {admin_id}" in err
    assert run(owner, "members", "leave", *in_it)[0] == f"{workspace_id}\n"  # an admin now: may leave
    assert [(m["userId"], m["role"]) for m in json.loads(run(admin, "members", "list", *in_it, "--json")[0])] == [
        (admin_id, "owner")]  # fmt: skip
    audit = json.loads(run(admin, "audit", *in_it, "--json")[0])
    assert [e["action"] for e in audit] == [
        "member.leave", "workspace.transfer", "member.remove", "member.role", "member.role", "member.join",
        "member.join", "member.invite", "invitation.revoke", "member.invite", "member.invite"]  # fmt: skip


@pytest.mark.e2e
def test_a_plan_that_takes_many_posts_down_needs_yes(
    service: LocalService, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 28: a bundle without its posts unpublished a whole feed without a word; now such a plan is printed,
    ``--dry-run`` says what it would need, and only ``--yes`` carries it out."""
    portal = signed_in(service, f"cli-{uuid.uuid4().hex[:12]}@example.com")
    workspace = portal.create_workspace(name="Guarded").workspace.id
    path = tmp_path / "session.json"
    save(path, Session(service.portal, portal.session_cookie, None))
    portal.close()
    session = ["--session-file", str(path)]
    root = small_bundle(tmp_path / "bundle")
    posts = [POSTS[0] | {"key": "media/a.jpg", "createdAt": f"2026-01-0{n + 1}T00:00:00Z"} for n in range(4)]
    (root / "posts.json").write_text(json.dumps(posts))
    assert main(["publish", str(root), "--workspace", workspace, "--no-progress", *session]) == 0
    (root / "posts.json").write_text("[]")
    capsys.readouterr()

    assert main(["publish", str(root), "--workspace", workspace, "--dry-run", *session]) == 0
    out, err = capsys.readouterr()
    assert out.count("unpublish post ") == 4 and "publish with --yes to carry it out" in err
    assert main(["publish", str(root), "--workspace", workspace, "--no-progress", *session]) == 1
    out, err = capsys.readouterr()
    assert "takes 4 posts and items off the agent's pages: run it again with --yes" in err and "published" not in out
    assert main(["publish", str(root), "--workspace", workspace, "--no-progress", "--yes", *session]) == 0
    assert main(["publish", str(root), "--workspace", workspace, *session]) == 0  # now nothing to do
    assert capsys.readouterr().out.endswith("up to date, nothing to do\n")
