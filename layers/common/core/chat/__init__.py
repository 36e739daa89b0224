"""Chat: a visitor's turn with an agent, streamed as NDJSON and billed to the workspace's owner.

- ``service.py``: ``ChatService`` — a turn's checks (agent, rate limits, credits), then ``stream.py``'s
  ``ChatStream`` runs it (start, delta…, done or error) and bills it through ``core.credits``
- ``prompt.py`` the model's request from the agent's published data; ``model.py`` the ``ChatModel`` interface,
  ``bedrock.py`` and ``offline.py`` the two models
- ``conversation_store.py``: ``ConversationStore`` (a thread's stored turns); ``models.py``, ``ports.py``
- ``providers.py``: ``model()``, ``service()``
"""
