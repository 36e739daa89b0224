"""Emulated Lambda containers: one process per container, a bounded pool of them per function.

- ``pool``: the containers of every function, started, reused, bounded and stopped (``capacity``: the bounds and
  what a request that finds none free gets).
- ``buffered``: a buffered function's container, a ``worker`` process answering invocations over a pipe;
  ``fork_server``: the warmed process the source tree's buffered containers are forked from.
- ``streaming``: a streaming function's container, the layer's ``stream-bootstrap`` against its own ``runtime_api``;
  ``invocation``: one invocation and how its response stream is read.
- ``package``: where the functions come from (the source tree or ``sam build``'s output) and which Python runs them;
  ``bare_python``: the launcher that runs a built function with nothing but the standard library, its code and its
  layer on the path.
"""
