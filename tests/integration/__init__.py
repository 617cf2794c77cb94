"""Integration tests of the event store: the same test bodies on SQLite and on PostgreSQL."""
