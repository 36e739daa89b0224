"""The files of a bundle: which are uploaded, their content types (from the extension) and their MD5.

Every file but the bundle's own JSON documents at its root, names starting with ``.`` (``.DS_Store``, an
editor's swap file) and the ``.workspace-client/`` folder is a file of the agent's folder. Its content type
comes from its extension and must be one the service accepts for uploads (``UPLOAD_TYPES`` in
``core/platform/write_fields.py``): a file the service would refuse is refused here, before anything is sent.

Symbolic links are followed while they stay in the bundle's folder (its real path: a link naming the folder itself
is the user's argument), files and folders alike, so a bundle may show one file under two names. A link whose
target is outside it (directly, through a chain of links or through a linked folder) is refused by its name while
the bundle is read, before anything is sent: otherwise a bundle received from someone else could publish any file
of the machine (``notes.txt`` → ``~/.ssh/id_ed25519``) to a folder anyone with a read key can read.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path, PurePosixPath

from ..errors import ClientError

DOCUMENTS = ("agent.json", "wrap.json", "site.json", "suggestions.json", "posts.json", "items.json", "answers.json")
TEXT = "; charset=utf-8"  # text files of a bundle are UTF-8, as its JSON is: said, so browsers decode them right
OOXML = "application/vnd.openxmlformats-officedocument."
ODF = "application/vnd.oasis.opendocument."
CONTENT_TYPES = {
    ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".gif": "image/gif",
    ".webp": "image/webp", ".avif": "image/avif",
    ".mp4": "video/mp4", ".m4v": "video/mp4", ".webm": "video/webm", ".mov": "video/quicktime",
    ".mp3": "audio/mpeg", ".m4a": "audio/mp4", ".aac": "audio/aac", ".ogg": "audio/ogg", ".oga": "audio/ogg",
    ".opus": "audio/ogg", ".wav": "audio/wav", ".weba": "audio/webm",
    ".pdf": "application/pdf", ".json": "application/json",
    ".txt": "text/plain" + TEXT, ".md": "text/markdown" + TEXT, ".markdown": "text/markdown" + TEXT,
    ".csv": "text/csv" + TEXT, ".uri": "text/uri-list" + TEXT, ".uris": "text/uri-list" + TEXT,
    # Documents the agent reads (authoring.md, "Knowledge"): office files, OpenDocument, EPUB and ZIP.
    ".docx": OOXML + "wordprocessingml.document", ".xlsx": OOXML + "spreadsheetml.sheet",
    ".pptx": OOXML + "presentationml.presentation", ".doc": "application/msword",
    ".xls": "application/vnd.ms-excel", ".ppt": "application/vnd.ms-powerpoint",
    ".odt": ODF + "text", ".ods": ODF + "spreadsheet", ".odp": ODF + "presentation",
    ".epub": "application/epub+zip", ".zip": "application/zip",
}  # fmt: skip
MD5_CHUNK = 1024 * 1024


class BundleError(ClientError):
    """A bundle that cannot be published as it is (the message names the file, the entry and the field), or a
    workspace it cannot be published to (an unknown brand) or exported from (an unknown agent)."""


def content_type(path: str) -> str | None:
    """The upload type of a bundle path, by its extension (case-insensitive); None when the service takes none."""
    return CONTENT_TYPES.get(PurePosixPath(path).suffix.lower())


def essence(content_type: str) -> str:
    """``text/markdown; charset=utf-8`` → ``text/markdown``: what an item's ``mimeType`` shows."""
    return content_type.split(";", 1)[0].strip().lower()


def uploaded(path: str) -> bool:
    """Whether a bundle-relative path is a file of the agent's folder (not a document, hidden or the tool's)."""
    parts = PurePosixPath(path).parts
    return path not in DOCUMENTS and not any(part.startswith(".") for part in parts)


@dataclass(frozen=True)
class BundleFile:
    """A file of the bundle, uploaded to ``projects/<agentId>/<path>``."""

    path: str  # bundle-relative, with "/"
    source: Path  # its real path (links resolved), in the bundle's folder
    size: int
    content_type: str

    @cached_property
    def md5(self) -> str:
        """The hex MD5 of the content (read once, when first asked: only files whose size matches need it)."""
        digest = hashlib.md5(usedforsecurity=False)
        with self.source.open("rb") as stream:
            while chunk := stream.read(MD5_CHUNK):
                digest.update(chunk)
        return digest.hexdigest()


def inside(root: Path, path: Path, name: str) -> Path:
    """The real path of ``path`` (every link resolved), which must be in the bundle's real folder ``root``."""
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(root):
        raise BundleError(f"{name}: a link out of the bundle (to {real}); only what is in its folder is published")
    return real


def bundle_files(root: Path) -> dict[str, BundleFile]:
    """Every uploaded file of the bundle at ``root``, by its bundle-relative path, in path order."""
    real_root = Path(os.path.realpath(root))
    found: dict[str, BundleFile] = {}
    folders_in = {os.fspath(root): {real_root}}  # each folder walked: the real folders it is in, itself included
    for folder, subfolders, names in os.walk(root, followlinks=True):
        above = folders_in.pop(folder)
        subfolders[:] = sorted(name for name in subfolders if not name.startswith("."))
        for name in subfolders:
            path = Path(folder, name).relative_to(root).as_posix()
            real = inside(real_root, Path(folder, name), path)
            if real in above:  # walking it would never end
                raise BundleError(f"{path}: a link to a folder it is in")
            folders_in[os.path.join(folder, name)] = above | {real}
        for name in sorted(names):
            path = Path(folder, name).relative_to(root).as_posix()
            if not uploaded(path):
                continue  # never read: a document (format.py reads those) or a hidden file
            source = inside(real_root, Path(folder, name), path)  # the real file: what was checked is what is read
            if not source.is_file():
                continue
            if "\\" in path or any(ord(char) < 0x20 or ord(char) == 0x7F for char in path):
                raise BundleError(f"{path}: a file name must not contain backslashes or control characters")
            kind = content_type(path)
            if kind is None:
                allowed = " ".join(sorted(CONTENT_TYPES))
                raise BundleError(f"{path}: the service takes no file of this extension (allowed: {allowed})")
            found[path] = BundleFile(path, source, source.stat().st_size, kind)
    return found
