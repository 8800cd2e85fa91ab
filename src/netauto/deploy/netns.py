"""Open TCP connections from inside a network namespace without moving the whole process there.

setns(2) changes the namespace of the calling thread only, so a short-lived thread enters the namespace,
connects, and hands the connected socket back: the socket stays bound to that namespace's stack. Used to
reach a lab's management network that exists only inside the lab.
"""

from __future__ import annotations

import ctypes
import os
import socket
import threading
from pathlib import Path

CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def _setns(fd: int) -> None:
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"setns failed: {os.strerror(err)}")


def connect_in_netns(netns: str, host: str, port: int, timeout: float = 10.0) -> socket.socket:
    path = Path("/run/netns") / netns
    if not path.exists():
        raise OSError(f"network namespace {netns!r} does not exist (is the lab up?)")
    result: dict[str, object] = {}

    def worker() -> None:
        try:
            with open(path) as handle:
                _setns(handle.fileno())
            result["sock"] = socket.create_connection((host, port), timeout=timeout)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            result["error"] = exc

    thread = threading.Thread(target=worker, name=f"netns-{netns}", daemon=True)
    thread.start()
    thread.join(timeout + 5)
    if "error" in result:
        raise result["error"]  # type: ignore[misc]
    if "sock" not in result:
        raise TimeoutError(f"connecting to {host}:{port} in {netns} timed out")
    return result["sock"]  # type: ignore[return-value]
