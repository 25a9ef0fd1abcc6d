import threading

import pytest

from bufsize.transfer.server import Server, ServerOptions


@pytest.fixture
def server():
    """A transfer server on 127.0.0.1 (ephemeral port) in a thread; stopped after the test."""
    srv = Server(ServerOptions(host="127.0.0.1", port=0, handshake_timeout=1.0, stall_timeout=5.0,
                               max_clients=2, log=False))
    stop = threading.Event()
    t = threading.Thread(target=srv.serve, args=(stop,), daemon=True)
    t.start()
    yield srv
    stop.set()
    t.join(timeout=5)
    assert not t.is_alive(), "server did not stop"
