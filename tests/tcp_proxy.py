"""A TCP forwarder on 127.0.0.1 in front of the test database, which a test can cut: every open connection is closed
and new ones are refused (a database that went away), then opened again on the same port (it is back)."""

from __future__ import annotations

import socket
import threading
from contextlib import suppress


class CuttableProxy:
    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.lock = threading.Lock()
        self.sockets: list[socket.socket] = []
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self.listener: socket.socket | None = None
        self.accepted = 0

    def open(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        """Close the listening socket (new connections are refused) and every open connection."""
        with self.lock:
            listener, self.listener = self.listener, None
            sockets, self.sockets = self.sockets, []
        if listener is not None:
            listener.close()
        for sock in sockets:  # shutdown first: it wakes the pump blocked in recv(), which close() alone would not
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            with suppress(OSError):
                sock.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self.lock:
                if self.listener is not listener:
                    client.close()
                    server.close()
                    return
                self.sockets += [client, server]
                self.accepted += 1
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        with suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        for sock in (source, sink):
            with suppress(OSError):
                sock.close()
