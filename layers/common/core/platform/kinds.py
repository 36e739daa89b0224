"""The closed sets of values (``Literal`` aliases) that wire models and storage records share.

They live apart from the models so that a module naming a kind does not load the module that
used to define it: ``records`` needed three aliases of ``management`` and built its twenty-odd
models on every function's cold path (docs/decisions.md, "Cold path").
"""

from __future__ import annotations

from typing import Literal

# Management plane
Role = Literal["owner", "admin", "member"]
InvitedRole = Literal["admin", "member"]  # what an invitation or a role change gives: ownership moves by transfer
WorkspaceType = Literal["personal", "team"]
WorkspaceOrigin = Literal["portal", "api", "import"]
RefType = Literal["render", "voice", "llm", "topup", "refund", "adjustment"]

# Read plane
PostKind = Literal["image", "video", "carousel", "story", "reel", "text"]
ItemKind = Literal["document", "image", "video", "audio", "link", "text"]
ItemOrigin = Literal["upload", "generated", "import"]
MediaType = Literal["image", "video"]
