"""The application: use cases over the event store, its configuration and secrets, the
live-update hub, the store side of audit and hand records, and league simulation. Imports
neither the gRPC adapter (``service.api``) nor the command line (``service.cli``)."""
