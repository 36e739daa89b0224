"""Answers: the owner's answers to the questions its documents do not answer (authoring.md, "The owner's answers").

- ``writer.py``: ``AnswerService`` — list, create (from a question, or from a turn's prompt), update, delete;
  ``write_store.py``: ``AnswerStore``; ``store.py``: ``AnswerReadStore`` (a page of answers, a turn's receipt)
- ``models.py``, ``writer_models.py``, ``records.py``, ``ports.py``; ``providers.py``: ``writer()``

Answers are part of the agent's knowledge: every write queues the agent for the knowledge worker, which indexes
each answer as one passage named by its question (``core.knowledge.worker``).
"""
