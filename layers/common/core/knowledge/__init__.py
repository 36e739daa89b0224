"""Knowledge: what an agent reads to answer (authoring.md, "Knowledge: what the agent reads").

- ``extract.py``: a document's text as passages that say where they stand (PDF, Office, OpenDocument, CSV, text,
  Markdown, JSON); its readers ``extract_*.py`` import their libraries inside (the knowledge worker's package only)
- ``text.py``: the one tokenizer of index and question; ``index.py``: the index object (written in passage batches by
  ``IndexWriter``) and its BM25 ``search``
- ``retrieval.py``: ``Retriever`` — the chat turn's passages, from an index cached per container and version;
  ``store.py``: its one S3 read
- ``worker.py``: ``KnowledgeWorker.rebuild`` — an agent's documents, posts and site into a new index, and each
  item's ``index`` state; ``write_store.py``: everything it reads and writes
- ``queue.py``: the messages (the writers', S3's events); ``ports.py``
- ``providers.py``: ``retriever()``, ``notify()`` (given to the writers), ``worker()``
"""
