"""Chat: a visitor's turn with an agent, streamed as NDJSON and billed to the workspace's owner.

- ``service.py``: ``ChatService`` — a turn's checks (agent, rate limits, credits), then ``stream.py``'s
  ``ChatStream`` runs it (start, delta…, done or error) and bills it through ``core.credits``
- ``prompt.py`` the model's request from the agent's published data; ``model.py`` the ``ChatModel`` interface,
  ``bedrock.py`` and ``offline.py`` the two models
- ``conversation_store.py``: ``ConversationStore``, what the chat stores of a turn (the turn and its thread's item,
  one transaction) and reads back to resume a thread (how long turns are kept: ``platform/retention.py``)
- the management plane's, never loaded by the chat: ``conversations.py`` ``ConversationReader`` (an agent's threads
  most recent first, a thread's turns), ``erasure.py`` ``ConversationEraser`` (a visitor's privacy request, in the
  audit log), ``thread_store.py`` ``ThreadStore``, ``conversation_models.py`` their wire models
- ``models.py``, ``ports.py``; ``providers.py``: ``model()``, ``service()``, ``preview()``, ``restamper()``,
  ``conversations()``, ``eraser()``
"""
