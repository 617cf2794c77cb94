"""An old three-player client: the Python stubs generated from the contract as released before
tables of four and five seats (``service/gen`` at commit ec7027e, frozen here with their imports
pointed at this package), and a client that plays with nothing else (``play``).

The stubs are never regenerated: they stand for a client built then and never updated, which
today's server must keep serving (``tests/e2e/test_old_client.py``). They register the same proto
file names as ``service.gen``, which one process cannot hold twice, so the client runs in a
process of its own.
"""
