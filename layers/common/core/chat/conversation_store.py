"""Stored chat turns, for workspaces with ``storeConversations``: one S3 object per turn.

Under ``workspaces/<id>/conversations/<agentId>/<client>/<threadKey>/<turnId>.json``: inside
the workspace's prefix, so deleting the workspace purges them; outside the read plane's
allowlist, so no workspace key can read them back through ``/v1/r2``; and under the
visitor's ``client`` hash, so a thread resumes only for the visitor who had it (thread
keys may be chosen by clients, and guessed).
"""

from __future__ import annotations

import json
from typing import Any

from core.platform.dynamo import translate_errors

RESUMED_TURNS = 6  # a resumed thread brings back its last six turns (twelve messages)


def _thread_prefix(workspace_id: str, agent_id: str, client: str, thread_key: str) -> str:
    return f"workspaces/{workspace_id}/conversations/{agent_id}/{client}/{thread_key}/"


class ConversationStore:
    def __init__(self, client: Any, bucket: str):
        self._s3 = client
        self._bucket = bucket

    def save(self, workspace_id: str, turn: dict[str, Any]) -> None:
        """Store ``turn`` (with its ``agentId``, ``client``, ``threadKey`` and ``turnId``)."""
        prefix = _thread_prefix(workspace_id, turn["agentId"], turn["client"], turn["threadKey"])
        key = f"{prefix}{turn['turnId']}.json"
        with translate_errors("PutObject"):
            self._s3.put_object(
                Bucket=self._bucket, Key=key, Body=json.dumps(turn).encode(), ContentType="application/json"
            )

    def recent_turns(self, workspace_id: str, agent_id: str, client: str, thread_key: str) -> list[str]:
        """The keys of the visitor's thread's last turns, oldest first (turn ids sort by time): one listing."""
        prefix = _thread_prefix(workspace_id, agent_id, client, thread_key)
        keys: list[str] = []
        with translate_errors("ListObjectsV2"):
            for page in self._s3.get_paginator("list_objects_v2").paginate(Bucket=self._bucket, Prefix=prefix):
                keys += [o["Key"] for o in page.get("Contents", [])]
        return sorted(keys)[-RESUMED_TURNS:]

    def messages(self, turn_key: str) -> list[tuple[str, str]]:
        """One stored turn as its (role, text) messages: the visitor's prompt, then the reply."""
        with translate_errors("GetObject"):
            turn = json.loads(self._s3.get_object(Bucket=self._bucket, Key=turn_key)["Body"].read())
        return [("user", turn["prompt"]), ("assistant", turn["reply"])]
