"""``bufsize transfer``: a memory-to-memory bulk TCP transfer over real sockets, with SOBAS.

The server sends, the client receives (a download, so the receiving application, where SOBAS
acts, is the one the user runs with ``--buffer``). See ``docs/transfer.md`` for the protocol, the
JSON schema and what the tool does on the kernel.
"""

from bufsize.transfer.client import ClientOptions, run_client
from bufsize.transfer.server import Server, ServerOptions

__all__ = ["ClientOptions", "Server", "ServerOptions", "run_client"]
