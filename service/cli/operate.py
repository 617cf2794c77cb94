"""Operating the service: ``pref serve``, ``pref migrate``, ``pref projections rebuild|run``."""

from __future__ import annotations

import argparse
import os
import sys
from functools import partial
from typing import TYPE_CHECKING, Any

from rich.console import Console

from service.cli.common import open_app
from service.cli.identity import identity_env

if TYPE_CHECKING:
    from service.connect.protocol import HttpLimits

SHARDS_HELP = (
    "spread games over this many event tables (PostgreSQL) or files (SQLite), 1-256; fixed "
    "when the store is first opened, later processes take it from the store and a different "
    "value is refused (default: $PREF_SHARDS, else the store's count, else 1; docs/SCALING.md)"
)


def shards_arg(text: str) -> int:
    """``--shards``: a whole number from 1 to ``MAX_SHARDS`` (argparse reports the error)."""
    from service.app.config import ConfigError
    from service.app.shards import parse_shards

    try:
        value = parse_shards(text)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if value is None:
        raise argparse.ArgumentTypeError("give a shard count from 1 to 256")
    return value


def with_shards(store: Any, shards: int | None) -> Any:
    """The store configuration with ``--shards`` (``PREF_SHARDS``) in its environment."""
    from service.app.config import StoreConfig
    from service.app.shards import SHARDS_ENV

    if shards is None:
        return store
    return StoreConfig({**store.env, SHARDS_ENV: str(shards)})


def cmd_migrate(args: argparse.Namespace) -> int:
    """Create the event tables and the projection tables, and drop the tables of retired read
    models (idempotent)."""
    from projections import drop_retired, standard_runners
    from service.app.application import PreferansApplication
    from service.app.config import store_config

    app = PreferansApplication(with_shards(store_config(args.store), args.shards).env)
    try:
        standard_runners(app, app.db)
        dropped = drop_retired(app.db)
    finally:
        app.close()
    if dropped:
        Console().print(f"dropped retired read models: {', '.join(dropped)}", markup=False)
    Console().print("tables are ready")
    return 0


def cmd_rebuild(args: argparse.Namespace) -> int:
    """Drop and rebuild projections from the event log, with a progress bar."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from projections import PROJECTION_NAMES, standard_runners
    from projections.runner import ProjectionFailed
    from projections.shadow import RebuildConflict

    names = tuple(args.names) or PROJECTION_NAMES
    app = open_app(args.store)
    try:
        runners = standard_runners(app, app.db, names)
        total = next(iter(runners.values())).max_position()
        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.completed:,}/{task.total:,} events"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
        ) as progress:
            for name, runner in runners.items():
                task = progress.add_task(f"rebuild {name}", total=total)
                runner.rebuild(partial(progress.advance, task))
                progress.update(task, completed=total)
    except (ProjectionFailed, RebuildConflict) as exc:
        # The live view is kept as it was; say which event stopped the rebuild, not its content.
        message = f"rebuild failed: {exc}; the live view is unchanged"
        Console(stderr=True).print(message, style="red", markup=False, soft_wrap=True)
        return 1
    finally:
        app.close()
    return 0


def _serve_metrics(args: argparse.Namespace, tls: Any = None) -> None:
    """Serve the Prometheus metrics if ``--metrics-port`` is given; over HTTPS with the gRPC
    listener's certificate and key when it serves TLS (``tls``: a ``ServerTls``)."""
    if args.metrics_port is None:
        return
    import structlog

    from projections.metrics import serve_metrics

    port = serve_metrics(
        args.metrics_host,
        args.metrics_port,
        certfile=tls.cert_file if tls is not None else None,
        keyfile=tls.key_file if tls is not None else None,
    )
    structlog.get_logger(__name__).info("metrics", address=args.metrics_host, port=port)


def processes_arg(text: str) -> int:
    """``--processes``: 1 to ``MAX_PROCESSES`` server processes."""
    if not text.strip().isdigit() or not 1 <= int(text) <= MAX_PROCESSES:
        raise argparse.ArgumentTypeError(
            f"invalid process count {text[:20]!r}: use a whole number from 1 to {MAX_PROCESSES}"
        )
    return int(text)


MAX_PROCESSES = 64
PROCESSES_HELP = (
    "run this many server processes on the same port (SO_REUSEPORT), about one per core; "
    "the first runs the projections (default: $PREF_PROCESSES or 1; docs/SCALING.md)"
)


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the gRPC server until SIGTERM/SIGINT (exit 2 if it cannot start)."""
    if args.processes > 1:
        try:  # checked here too: children that cannot start would be restarted forever
            browser_options(args)
        except ValueError as exc:
            print(f"pref serve: {exc}", file=sys.stderr)
            return 2
        return _serve_processes(args)
    import asyncio
    from pathlib import Path

    from service.api.limits import LIMIT_HELP, limits_from
    from service.api.logs import configure
    from service.api.server import BindError
    from service.api.tls import TlsConfigError, server_tls
    from service.app.config import StoreConfig, store_config
    from service.connect.server import serve

    configure(args.log_level)
    store = with_shards(store_config(args.store), args.shards)
    if args.key_file:
        store = StoreConfig({**store.env, "PREF_KEY_FILE": args.key_file, "PREF_KEYS": ""})
    store = StoreConfig({**store.env, **identity_env(args)})
    try:
        limits = limits_from(os.environ, {name: getattr(args, name) for name in LIMIT_HELP})
        tls = server_tls(args.tls_cert, args.tls_key, args.tls_client_ca)
        health_port = args.health_port or os.environ.get("PREF_HEALTH_PORT")
        if health_port is not None and not str(health_port).isdigit():
            raise ValueError(f"PREF_HEALTH_PORT={health_port!r} is not a port number")
        cors_origins, http_limits = browser_options(args)
    except ValueError as exc:  # TlsConfigError too
        print(f"pref serve: {exc}", file=sys.stderr)
        return 2
    _serve_metrics(args, tls)
    try:
        asyncio.run(
            serve(
                store,
                f"{args.host}:{args.port}",
                workers=args.workers,
                run_projections=not args.no_projections,
                run_keeper=not args.no_keeper,
                auditor_token=args.auditor_token,
                limits=limits,
                tls=tls,
                reuse_port=args.reuse_port,
                health_address=f"{args.host}:{health_port}" if health_port else None,
                connect_address=None if args.no_connect else f"{args.host}:{args.connect_port}",
                web_root=Path(args.web_root) if args.web_root else None,
                cors_origins=cors_origins,
                http_limits=http_limits,
                public_hosts=tuple(args.public_host),
            )
        )
    except (BindError, TlsConfigError) as exc:
        print(f"pref serve: {exc}", file=sys.stderr)
        return 2
    return 0


def _serve_processes(args: argparse.Namespace) -> int:
    """``--processes N``: check the store once (shard count included, so the children never
    race to record it), then supervise N children (``service.cli.supervise``)."""
    from service.app.application import PreferansApplication
    from service.app.config import StoreConfig, store_config
    from service.cli.supervise import supervise

    if args.port == 0:
        print("pref serve: --processes needs a fixed --port (they share it)", file=sys.stderr)
        return 2
    store = with_shards(store_config(args.store), args.shards)
    if args.key_file:
        store = StoreConfig({**store.env, "PREF_KEY_FILE": args.key_file, "PREF_KEYS": ""})
    app = PreferansApplication({**store.env, **identity_env(args)})
    try:
        app.keys  # noqa: B018 - a missing or bad key stops here, once, not in every child
        app.identity  # noqa: B018 - and a bad issuer configuration; the dev key is created once
    finally:
        app.close()
    return supervise(args)


def cmd_reshard(args: argparse.Namespace) -> int:
    """Copy a stopped store into a new store with another shard count (service.app.reshard)."""
    from service.app.application import PreferansApplication
    from service.app.config import ConfigError, store_config
    from service.app.reshard import reshard

    source_config = store_config(args.source)
    target_config = with_shards(store_config(args.target), args.shards)
    if source_config.describe() == target_config.describe():
        raise ConfigError("--from and --to name the same store: reshard into a new store")
    source = PreferansApplication(source_config.env)
    try:
        target = PreferansApplication(target_config.env)
        try:
            report = reshard(source, target)
        finally:
            target.close()
    finally:
        source.close()
    Console().print(
        f"copied {report.events:,} events of {report.games:,} games and {report.revocations:,} "
        f"revocations into {report.shards} shards "
        f"({', '.join(f'{n:,}' for n in report.per_shard)}); projections built. Serve "
        f"{target_config.describe()} with the same server keys.",
        markup=False,
        soft_wrap=True,
    )
    return 0


def cmd_projections_run(args: argparse.Namespace) -> int:
    """Keep projections caught up until SIGTERM/SIGINT."""
    import signal
    import threading

    from projections import PROJECTION_NAMES, ProjectionWorker, standard_runners
    from service.api.logs import configure

    configure()
    _serve_metrics(args)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    app = open_app(args.store)
    worker = ProjectionWorker(
        list(standard_runners(app, app.db, tuple(args.names) or PROJECTION_NAMES).values()),
        interval=args.interval,
    )
    worker.start()
    try:
        stop.wait()
    finally:
        worker.stop()
        app.close()
    return 0


def projection_name(name: str) -> str:
    """A read model's name, or a usage error naming the known ones (docs/READSIDE.md)."""
    from projections import PROJECTION_NAMES, RETIRED

    if name in PROJECTION_NAMES:
        return name
    why = " (removed: nothing read it)" if name in RETIRED else ""
    raise argparse.ArgumentTypeError(
        f"no read model {name[:40]!r}{why}; known: {', '.join(PROJECTION_NAMES)}"
    )


def browser_options(args: argparse.Namespace) -> tuple[tuple[str, ...], HttpLimits]:
    """The browser port's normalised ``--cors-origin`` values and HTTP limits; ``ValueError``
    for an origin that is not one, a limit that is not positive, or ``--dev-auth`` on a
    non-loopback ``--host`` without ``--public-host`` (docs/CONNECT.md)."""
    from service.api.tls import is_loopback
    from service.connect.web import normalise_origin

    cors_origins = tuple(normalise_origin(origin) for origin in args.cors_origin)
    http_limits = browser_limits(args)
    wildcard_dev = args.dev_auth and not is_loopback(args.host.strip("[]"))
    if wildcard_dev and not args.no_connect and not args.public_host:
        raise ValueError(
            f"--dev-auth on the non-loopback address {args.host} needs --public-host "
            "NAME (the host name browsers use; other Host names are refused)"
        )
    return cors_origins, http_limits


def browser_limits(args: argparse.Namespace) -> HttpLimits:
    """The browser port's HTTP limits from ``--connect-*``; ``ValueError`` if one is not
    positive. ``--connect-max-connections`` defaults to 512, or half the process's open-file
    limit if that is lower (the gRPC port and the store need descriptors too)."""
    import resource

    from service.connect.protocol import HttpLimits

    connections = args.connect_max_connections
    if connections is None:
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        connections = 512 if soft == resource.RLIM_INFINITY else max(1, min(512, soft // 2))
    limits = HttpLimits(
        max_head_bytes=args.connect_max_header_bytes,
        head_timeout=args.connect_head_timeout,
        body_timeout=args.connect_body_timeout,
        max_connections=connections,
    )
    for name, value in vars(limits).items():
        if not value > 0:
            raise ValueError(f"the browser port's {name} must be positive, not {value}")
    return limits
