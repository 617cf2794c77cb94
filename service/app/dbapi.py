"""A database driver's error as the ``eventsourcing`` library raises it.

Both drivers follow PEP 249's hierarchy (``InterfaceError``; under ``DatabaseError``,
``DataError``, ``OperationalError``, ``IntegrityError``, ``InternalError``,
``ProgrammingError``, ``NotSupportedError``), and the library maps each class to its own of the
same name (``PostgresDatastore.get_connection``, ``SQLiteTransaction``), anything else to
``PersistenceError``. The recorders' own write paths (``pgrecorder``, ``sqliterecorder``)
raise what the library would; their tests compare with the library's mapping.
"""

from __future__ import annotations

from eventsourcing import persistence
from eventsourcing.persistence import PersistenceError

_NAMES = frozenset(
    {
        "InterfaceError",
        "DatabaseError",
        "DataError",
        "OperationalError",
        "IntegrityError",
        "InternalError",
        "ProgrammingError",
        "NotSupportedError",
    }
)


def library_error(exc: Exception) -> PersistenceError:
    """The library's error for a driver's ``exc`` (its nearest PEP 249 class), chained by the
    caller."""
    for cls in type(exc).__mro__:
        if cls.__name__ in _NAMES:
            error: type[PersistenceError] = getattr(persistence, cls.__name__)
            return error(str(exc))
    return PersistenceError(str(exc))
