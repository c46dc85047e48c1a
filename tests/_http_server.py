"""A small HTTP server on 127.0.0.1 for the download tests (no internet needed).

``LocalServer`` serves byte strings by URL path from a thread, counts the requests per path, and
can be told to break a transfer off half-way (it announces the full Content-Length, sends half
the bytes and closes the connection). ``dead_url()`` is a base URL on which nothing listens.
"""
from __future__ import annotations

import socket
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LocalServer:
    """Serve ``files`` (URL path without the leading ``/`` -> bytes) on a free local port."""

    def __init__(self, files: dict[str, bytes] | None = None):
        self.files: dict[str, bytes] = dict(files or {})
        self.truncate: set[str] = set()  # paths whose transfer breaks off half-way
        self.requests: Counter[str] = Counter()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's naming)
                path = self.path.lstrip("/")
                owner.requests[path] += 1
                body = owner.files.get(path)
                if body is None:
                    self.send_error(404, "Not Found")
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if path in owner.truncate:
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self.wfile.write(body)

            def log_message(self, format, *args):  # keep the test output clean
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/"

    def __enter__(self) -> LocalServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def dead_url() -> str:
    """A base URL on 127.0.0.1 whose port was free a moment ago: connections are refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/"
