"""Waiting in the main thread for Ctrl-C or SIGTERM, with signal handlers that take no lock.

The runner used to wait with ``threading.Event`` and handlers calling ``Event.set()``. Python runs a
handler in the main thread, between two bytecodes of whatever that thread is doing, and ``set()``
takes the Event's lock: when the handler ran while the main thread itself held that lock (inside
``Event.wait``, right after re-taking it; or inside a first handler's ``set()`` when a second signal
came), the main thread waited for itself, for ever, and every later signal queued behind it.

Here the signals are installed with Python handlers that do nothing, plus ``signal.set_wakeup_fd``:
CPython's C-level handler, in whichever thread the kernel picked, writes the signal's number to a
socket (a plain ``write``, no lock), and the main thread blocks reading that socket, holding no lock.

Not ``signal.sigwait`` with the signals blocked: a thread started before the mask is set keeps them
unblocked (and may be the one to take them), and every child process inherits the mask (``subprocess``
restores ignored signals, not blocked ones), so the runner's containers would ignore SIGTERM. The wakeup
socket is not inherited (PEP 446) and changes nothing outside this process.
"""

from __future__ import annotations

import signal
import socket
from collections.abc import Iterable
from types import FrameType

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
# How often the runner's HTTP servers (the two APIs, the page, moto) look for a shutdown: socketserver's default,
# half a second each, made every stop of a runner wait about 1.5 s for its servers alone.
STOP_POLL = {"poll_interval": 0.05}


def _noted(signum: int, frame: FrameType | None) -> None:
    """Nothing: the C-level handler has already written ``signum`` to the wakeup socket, all ``wait`` reads.

    It must stay installed (not SIG_IGN or SIG_DFL) for that C handler to run; being empty, it takes no
    lock, so it is harmless wherever it interrupts the main thread, a stop under way included.
    """


class StopSignals:
    """Ctrl-C and SIGTERM, noted from the moment this is made (in the main thread) until the process exits.

    ``wait()`` returns once one of them has arrived, even before ``wait()`` was called; any later one is
    ignored, so a second Ctrl-C does not cut a graceful stop short.
    """

    def __init__(self, signums: Iterable[int] = STOP_SIGNALS):
        self._signums = frozenset(int(signum) for signum in signums)
        # Never closed: the C handler may write to the fd at any moment until exit, and a closed number
        # could be reused by a file (the journal) that would then receive the signal bytes.
        self._read, self._write = socket.socketpair()
        self._write.setblocking(False)  # required: the C handler must never block; a full buffer drops bytes
        signal.set_wakeup_fd(self._write.fileno(), warn_on_full_buffer=False)
        for signum in self._signums:
            signal.signal(signum, _noted)

    def ignore_from_now(self) -> None:
        """For a process whose stop is done: every later SIGINT and SIGTERM ignored. Python's finalization puts the
        default action back on a signal that has a Python handler (``_noted``), and a signal arriving then would end a
        process that had stopped cleanly with -2 or -15 (seen: a storm still under way as a quick stop ended); it
        leaves an ignored one ignored."""
        for signum in self._signums:
            signal.signal(signum, signal.SIG_IGN)

    def wait(self) -> signal.Signals:
        """Block until SIGINT or SIGTERM arrives (or has arrived); which one."""
        while True:
            # A blocking read holding no lock; interrupted (EINTR), Python runs ``_noted`` and reads again.
            for signum in self._read.recv(256):
                if signum in self._signums:  # other Python-handled signals write their number too
                    return signal.Signals(signum)
