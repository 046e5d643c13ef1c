"""A stranger on the loopback address: a listener that answers every connection with fixed bytes."""

from __future__ import annotations

import socket
import threading


def listener(greeting: bytes | None) -> socket.socket:
    """A socket on a free 127.0.0.1 port that answers every connection with ``greeting`` (None: silence) and keeps
    it open; closing the socket ends its thread."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.settimeout(30)
    conns = []

    def serve() -> None:
        while True:
            try:
                conn, _ = sock.accept()
            except OSError:
                return
            conns.append(conn)
            if greeting is not None:
                conn.sendall(greeting)

    threading.Thread(target=serve, daemon=True).start()
    return sock
