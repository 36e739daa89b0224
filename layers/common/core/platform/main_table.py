"""Key layout of the main (identity and workspaces) table. See docs/data-model.md."""

from __future__ import annotations

from urllib.parse import quote


def _singleton(kind: str, value: str) -> dict[str, str]:
    """An item alone in its partition: ``KIND#value`` / ``KIND`` (a user, a workspace, a claim, a token)."""
    return {"pk": f"{kind}#{value}", "sk": kind}


def user(user_id: str) -> dict[str, str]:
    return _singleton("USER", user_id)


def workspace(workspace_id: str) -> dict[str, str]:
    return _singleton("WS", workspace_id)


def member(workspace_id: str, user_id: str) -> dict[str, str]:
    return {"pk": f"WS#{workspace_id}", "sk": f"MEMBER#{user_id}"}


INVITATION = "INVITE#"


def invitation(workspace_id: str, email: str) -> dict[str, str]:
    """A pending invitation, keyed by the invited address (lower-case): one per address and workspace, so two
    invitations of one address at once meet on one item and the second renews the first."""
    return {"pk": f"WS#{workspace_id}", "sk": f"{INVITATION}{email}"}


def brand(workspace_id: str, brand_id: str) -> dict[str, str]:
    return {"pk": f"WS#{workspace_id}", "sk": f"BRAND#{brand_id}"}


def workflow(workspace_id: str, workflow_id: str) -> dict[str, str]:
    return {"pk": f"WS#{workspace_id}", "sk": f"WORKFLOW#{workflow_id}"}


def agent(workspace_id: str, agent_id: str) -> dict[str, str]:
    return {"pk": f"WS#{workspace_id}", "sk": f"AGENT#{agent_id}"}


def agent_counts(workspace_id: str, agent_id: str) -> dict[str, str]:
    """The agent's counters (``postCount``, ``itemCount``, ``answerCount``): a small item beside the agent that each
    post, item and answer write moves, so those writes never touch (nor pay for) the agent's documents. ``COUNTS#``
    sorts outside the ``AGENT#`` range, so nothing that lists a workspace's agents meets one."""
    return {"pk": f"WS#{workspace_id}", "sk": f"{AGENT_COUNTS}{agent_id}"}


AGENT_COUNTS = "COUNTS#"


def agent_slug_claim(workspace_id: str, slug: str) -> dict[str, str]:
    """Claims keep slugs unique within a workspace; ``SLUG#`` never prefixes a listed range (``AGENT#``, ``BRAND#``)."""
    return {"pk": f"WS#{workspace_id}", "sk": f"SLUG#AGENT#{slug}"}


def brand_slug_claim(workspace_id: str, slug: str) -> dict[str, str]:
    return {"pk": f"WS#{workspace_id}", "sk": f"SLUG#BRAND#{slug}"}


def storage_lock(workspace_id: str) -> dict[str, str]:
    """A counter every upload signing of the workspace moves, so two signings cannot both spend the last bytes."""
    return {"pk": f"WS#{workspace_id}", "sk": "STORAGE"}


UPLOAD = "UPLOAD#"


def objects_partition(workspace_id: str) -> str:
    """The workspace's stored objects as S3's notifications told them (core.objects.storage_store): one record per
    key, its size and the last event applied, so the ``STORAGE`` counter can move exactly once per change."""
    return f"WS#{workspace_id}#OBJECTS"


def stored_object(workspace_id: str, path: str) -> dict[str, str]:
    return {"pk": objects_partition(workspace_id), "sk": path}


def upload_reservation(workspace_id: str, signing: str) -> dict[str, str]:
    """An upload signed and not yet known to have landed (TTL removes it when its URL has expired). Keyed by the
    signing, not the path: a path signed again leaves the first ticket able to store until it expires."""
    return {"pk": f"WS#{workspace_id}", "sk": f"{UPLOAD}{signing}"}


def audit_partition(workspace_id: str) -> str:
    return f"AUDIT#{workspace_id}"


def audit_entry(workspace_id: str, created_at: str, entry_id: str) -> dict[str, str]:
    """Newest first is a descending Query of the workspace's own partition (never read with the workspace's items)."""
    return {"pk": audit_partition(workspace_id), "sk": f"{created_at}#{entry_id}"}


def posts_partition(agent_id: str) -> str:
    return f"AGENT#{agent_id}#POSTS"


PUBLISHED_POST = "POST#"  # drafts sort under DRAFT#, outside the feed's range


def post(agent_id: str, created_at: str, post_id: str, *, published: bool = True) -> dict[str, str]:
    # createdAt first so a descending Query is the feed order; the id breaks ties. Drafts get their own
    # prefix, so the published range holds only what the feed returns and ``Limit`` is exactly a page.
    prefix = PUBLISHED_POST if published else DRAFT_POST
    return {"pk": posts_partition(agent_id), "sk": f"{prefix}{created_at}#{post_id}"}


DRAFT_POST = "DRAFT#"


def post_by_id(agent_id: str, post_id: str) -> dict[str, str]:
    """The post's canonical item: what a writer reads (by id) and conditions on; the rows and copies follow it."""
    return {"pk": posts_partition(agent_id), "sk": f"ID#{post_id}"}


def feed_filters_partition(agent_id: str) -> str:
    """Copies of published posts, one per filter they match, so a filtered feed is one exact Query."""
    return f"AGENT#{agent_id}#FILTERS"


def feed_filter_prefix(channel: str | None, category: str | None) -> str:
    """The sort-key prefix of the copies matching both filters (at least one given); values are
    percent-encoded so a ``#`` inside one cannot reach into another value's range."""
    if channel is not None and category is not None:
        return f"BOTH#{quote(channel, safe='')}#{quote(category, safe='')}#"
    if channel is not None:
        return f"CHANNEL#{quote(channel, safe='')}#"
    if category is not None:
        return f"CATEGORY#{quote(category, safe='')}#"
    raise ValueError("no filter")


def feed_filter_copies(
    agent_id: str, created_at: str, post_id: str, channels: list[str], category: str | None
) -> list[dict[str, str]]:
    """The keys of a published post's copies: per channel, for its category, per (channel, category)."""
    distinct = list(dict.fromkeys(channels))
    prefixes = [feed_filter_prefix(c, None) for c in distinct]
    if category is not None:
        prefixes += [feed_filter_prefix(None, category)] + [feed_filter_prefix(c, category) for c in distinct]
    partition = feed_filters_partition(agent_id)
    return [{"pk": partition, "sk": f"{p}{created_at}#{post_id}"} for p in prefixes]


def items_partition(agent_id: str) -> str:
    return f"AGENT#{agent_id}#ITEMS"


ACTIVE_ITEM = "ITEM#"  # inactive items sort under INACTIVE#, so reading the active ones reads nothing else
INACTIVE_ITEM = "INACTIVE#"


def item(agent_id: str, item_id: str, *, active: bool = True) -> dict[str, str]:
    return {"pk": items_partition(agent_id), "sk": f"{ACTIVE_ITEM if active else INACTIVE_ITEM}{item_id}"}


# An item's place in its listing (issue 43): the items are listed by folder, order and id, which their keys do not
# hold, so each has a copy of its key in a partition of its own, keyed by that place (folder as the hex of its UTF-8:
# every hex digit sorts after ``#``, so a folder sorts before any folder it begins, as Python's ``<`` puts it; order
# zero-padded). The copy is written in the transaction of each write of its item. ``ITEMS_ORDERED`` says every item
# of the agent has its copy (made with the agent; ``python -m ops order-items`` for agents made before).
ACTIVE_PLACE = "A#"
INACTIVE_PLACE = "I#"
ITEMS_ORDERED = "ORDERED"


def item_order_partition(agent_id: str) -> str:
    return f"AGENT#{agent_id}#ITEMORDER"


def item_place(folder: str, order: int, item_id: str) -> str:
    return f"{folder.encode().hex()}#{order:010d}#{item_id}"


def item_order(agent_id: str, place: str, *, active: bool) -> dict[str, str]:
    return {"pk": item_order_partition(agent_id), "sk": f"{ACTIVE_PLACE if active else INACTIVE_PLACE}{place}"}


def items_ordered(agent_id: str) -> dict[str, str]:
    return {"pk": item_order_partition(agent_id), "sk": ITEMS_ORDERED}


# Uniqueness claims and short-lived items. Items carrying a numeric ``expiresAt``
# are removed by the table's TTL; readers still check expiry (TTL deletes late).


def email_claim(email: str) -> dict[str, str]:
    return _singleton("EMAIL", email.lower())


def slug_claim(slug: str) -> dict[str, str]:
    return _singleton("SLUG", slug)


def session(session_id: str) -> dict[str, str]:
    return _singleton("SESSION", session_id)


def session_token(token_hash: str) -> dict[str, str]:
    return _singleton("SESSIONTOKEN", token_hash)


def magic_token(token_hash: str) -> dict[str, str]:
    return _singleton("MAGIC", token_hash)


def invitation_token(token_hash: str) -> dict[str, str]:
    """An invitation's token, by its SHA-256 (the link's token is never stored); TTL removes it once expired."""
    return _singleton("INVITETOKEN", token_hash)


def idempotency(key_hash: str) -> dict[str, str]:
    return _singleton("IDEMPOTENCY", key_hash)


def purge(workspace_id: str) -> dict[str, str]:
    return _singleton("PURGE", workspace_id)


def agent_purge(workspace_id: str, agent_id: str) -> dict[str, str]:
    """A deleted agent's tombstone until its content is purged: outside the workspace's partition, so a
    workspace purge running meanwhile cannot take it and leave the agent's partitions behind."""
    return _singleton("PURGE", f"{workspace_id}#AGENT#{agent_id}")


def user_memberships(user_id: str) -> tuple[str, str]:
    """(gsi1pk, gsi1sk prefix) of a user's membership items."""
    return f"USER#{user_id}", "MEMBER#"


# Stored conversations (core.chat): every thread and turn of an agent's visitors in one partition, the visitor
# (``client``) leading the sort key, so a visitor's erasure is one Query and a thread's turns one range. ``client``
# and thread keys never hold ``#`` (core.chat.models.ChatRequest), so each prefix ends exactly where it should.


def conversations_partition(agent_id: str) -> str:
    return f"AGENT#{agent_id}#CONVERSATIONS"


def visitor_prefix(client: str) -> str:
    return f"VISITOR#{client}#"


def visitor_threads_prefix(client: str) -> str:
    return f"{visitor_prefix(client)}THREAD#"


def thread_turns_prefix(client: str, thread_key: str) -> str:
    """A thread's turns, oldest first (turn ids are ULIDs). ``THREAD#`` sorts before ``TURN#``: a visitor's thread
    items come before their turns in a Query, so an erasure deletes the listing's rows first."""
    return f"{visitor_prefix(client)}TURN#{thread_key}#"


def thread(agent_id: str, client: str, thread_key: str) -> dict[str, str]:
    return {"pk": conversations_partition(agent_id), "sk": f"{visitor_threads_prefix(client)}{thread_key}"}


def turn(agent_id: str, client: str, thread_key: str, turn_id: str) -> dict[str, str]:
    return {"pk": conversations_partition(agent_id), "sk": f"{thread_turns_prefix(client, thread_key)}{turn_id}"}


def threads_index(agent_id: str, last_at: str, client: str, thread_key: str) -> dict[str, str]:
    """``gsi1``: an agent's threads by their last turn, so "most recent first" is one descending Query."""
    return {"gsi1pk": f"AGENT#{agent_id}#THREADS", "gsi1sk": f"{last_at}#{client}#{thread_key}"}


# What visitors say back (issue 40; docs/data-model.md, "Feedback, insights and answers"). Each kind has its own
# partition per agent, so an agent's busiest writes never share one, and an agent's purge drains each with one Query.


def turns_partition(agent_id: str) -> str:
    return f"AGENT#{agent_id}#TURNS"


def turn_receipt(agent_id: str, turn_id: str) -> dict[str, str]:
    """Every delivered turn's receipt (whether or not conversations are stored), kept 8 days: what a rating checks
    (this agent's, this visitor's, within 7 days) and what it copies beside the rating."""
    return {"pk": turns_partition(agent_id), "sk": f"TURN#{turn_id}"}


def insights_partition(agent_id: str) -> str:
    return f"AGENT#{agent_id}#INSIGHTS"


INSIGHTS_SHARDS = 4  # a day's counters are spread over this many items: no one item takes every turn's write


def insights_day(agent_id: str, day: str, shard: int) -> dict[str, str]:
    """One shard of an agent's counters of one UTC day (``day`` YYYY-MM-DD): the reader adds the shards up."""
    return {"pk": insights_partition(agent_id), "sk": f"DAY#{day}#{shard}"}


def questions_partition(agent_id: str) -> str:
    return f"AGENT#{agent_id}#QUESTIONS"


def question(agent_id: str, day: str, question_key: str) -> dict[str, str]:
    """How often a question (its normalised key: ``core.insights.questions``) was asked on a UTC day."""
    return {"pk": questions_partition(agent_id), "sk": f"{day}#{question_key}"}


def questions_index(agent_id: str, day: str) -> str:
    """``gsi2pk`` of a day's questions: ``gsi2`` sorts them by ``gsi2sk``, their count, so a day's most asked are
    one descending Query of ``Limit`` 20."""
    return f"AGENT#{agent_id}#QUESTIONS#{day}"


def unanswered_partition(agent_id: str) -> str:
    return f"AGENT#{agent_id}#UNANSWERED"


def unanswered(agent_id: str, created_at: str, turn_id: str) -> dict[str, str]:
    return {"pk": unanswered_partition(agent_id), "sk": f"{created_at}#{turn_id}"}


def feedback_partition(agent_id: str) -> str:
    return f"AGENT#{agent_id}#FEEDBACK"


FEEDBACK_ALL = "ALL#"  # every rating, newest first; ``UP#`` and ``DOWN#`` hold a copy per rating, for ``?rating=``


def feedback_rows(agent_id: str, rated_at: str, turn_id: str, rating: str, client: str) -> list[dict[str, str]]:
    """The three rows of one rating: in the listing of all, in its rating's listing, and under its visitor (what an
    erasure finds them by). ``rated_at`` leads, so each listing is one descending Query."""
    partition, tail = feedback_partition(agent_id), f"{rated_at}#{turn_id}"
    return [
        {"pk": partition, "sk": f"{FEEDBACK_ALL}{tail}"},
        {"pk": partition, "sk": f"{rating.upper()}#{tail}"},
        {"pk": partition, "sk": f"{visitor_prefix(client)}{tail}"},
    ]


def answers_partition(agent_id: str) -> str:
    return f"AGENT#{agent_id}#ANSWERS"


def answer(agent_id: str, answer_id: str) -> dict[str, str]:
    return {"pk": answers_partition(agent_id), "sk": f"ANSWER#{answer_id}"}


WEBHOOK = "WEBHOOK#"


def webhook(workspace_id: str, webhook_id: str) -> dict[str, str]:
    """A webhook, in its workspace's partition (at most ``WEBHOOKS_MAX``: the fan-out reads them in one Query)."""
    return {"pk": f"WS#{workspace_id}", "sk": f"{WEBHOOK}{webhook_id}"}


def deliveries_partition(webhook_id: str) -> str:
    return f"WEBHOOK#{webhook_id}#DELIVERIES"


DELIVERY = "DLV#"


def delivery(webhook_id: str, delivery_id: str) -> dict[str, str]:
    """A delivery of an event to a webhook; ids are time-ordered ULIDs, so the partition read backwards is newest
    first."""
    return {"pk": deliveries_partition(webhook_id), "sk": f"{DELIVERY}{delivery_id}"}


def delivery_status_index(webhook_id: str, status: str, delivery_id: str) -> dict[str, str]:
    """``gsi1``: a webhook's deliveries of one status, newest first (``?status=`` is one descending Query); moved
    with the status by every write that changes it."""
    return {"gsi1pk": f"WEBHOOK#{webhook_id}#{status}", "gsi1sk": f"{DELIVERY}{delivery_id}"}
