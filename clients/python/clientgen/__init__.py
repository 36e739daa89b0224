"""The client generator's pieces (run through ``clients/python/generate.py``, the command line).

``schema``: JSON schema → Python types, names and docstrings; ``models``: the pydantic classes of a
document's components; ``operations``: one typed method per JSON operation, sync and async.
"""
