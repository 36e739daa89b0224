"""The command line's session file: the portal's URL, the ``session`` cookie of the sign-in and the current JWT.

It holds credentials, so only its owner may read it: the folder is made 0700 and the file is written 0600 under a
temporary name in that folder and then renamed over the old one (``os.replace``), so it is never readable by
others, not even for a moment, and never half-written. Where: ``--session-file``, else ``$WORKSPACE_CLIENT_SESSION``,
else ``$XDG_CONFIG_HOME/workspace-client/session.json`` (``~/.config/…`` by default).
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from ..errors import ClientError

ENV_VARIABLE = "WORKSPACE_CLIENT_SESSION"
FOLDER_NAME = "workspace-client"


class SessionError(ClientError):
    """No usable session file: the message says to run ``workspace-client login``."""


@dataclass(frozen=True)
class Session:
    portal_url: str
    session: str | None  # the ``session`` cookie (30 days): what renews the JWT once it has expired
    token: str | None  # the portal JWT (one hour)
    email: str = ""


def default_path() -> Path:
    configured = os.environ.get(ENV_VARIABLE)
    if configured:
        return Path(configured)
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / FOLDER_NAME / "session.json"


def load(path: Path) -> Session:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        session = Session(
            portal_url=raw["portalUrl"], session=raw.get("session"), token=raw.get("token"), email=raw.get("email", "")
        )
    except FileNotFoundError:
        raise SessionError(f"not signed in (no {path}): run workspace-client login") from None
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise SessionError(f"{path} is not a session file ({error}): run workspace-client login") from None
    if not session.session and not session.token:
        raise SessionError(f"{path} holds no session: run workspace-client login")
    return session


def save(path: Path, session: Session) -> None:
    """Write ``session`` to ``path`` atomically, readable by its owner only (a missing folder is made 0700)."""
    folder = path.parent
    if not folder.exists():
        folder.mkdir(mode=0o700, parents=True)
        folder.chmod(0o700)  # whatever the umask left of it
    elif folder.name == FOLDER_NAME:
        folder.chmod(0o700)  # the tool's own folder: tightened if it was made more open
    fields = asdict(session)
    document = {"portalUrl": fields.pop("portal_url")} | fields
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".session-", suffix=".tmp")  # made 0600
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(document, stream, indent=2)
            stream.write("\n")
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
