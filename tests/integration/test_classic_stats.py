"""League statistics of Classic (issue 12; docs/STATS.md "Classic") on both stores: bombs
declared and joined, bomb signs earned and crossed out, dark games, dark misères and games
without talon, counted by the stats projection from the events alone and checked against the
rules core's own replay of the same logs (the sign ledger of ``GameState``, each deal's
``dark``/``no_talon``/``bombers``); rebuild = incremental, row for row."""

from __future__ import annotations

import random
import uuid
from collections import Counter
from typing import Any

from domain.rules import Action, RuleSet, SeatView
from domain.rules.actions import Bomb
from domain.rules.bombs import made
from domain.rules.state import Kind
from domain.rules.systems import CLASSIC, rule_set
from projections import stats_queries as q
from projections.stats import CLASSIC_COUNTERS
from service.app.application import PreferansApplication
from tests.integration.helpers import (
    PLAYERS,
    Policy,
    create,
    dump_tables,
    play,
    random_policy,
    replay_in_domain,
    topic,
)
from tests.integration.test_stats import STATS_TABLES, stats_runner

LEAGUE = "classic"
RULES = CLASSIC.with_options(pool_target=6)


def classic_policy(rng: random.Random) -> Policy:
    """The random policy, saying "bomb" more often where it may (so bombs get joined)."""
    base = random_policy(rng, bot_share=0.5)

    def policy(view: SeatView) -> Action:
        bombs = [a for a in view.legal if isinstance(a, Bomb)]
        if bombs and rng.random() < 0.4:
            return bombs[0]
        return base(view)

    return policy


def _expected(
    app: PreferansApplication, game_ids: list[uuid.UUID]
) -> tuple[dict[str, Counter[str]], Counter[str]]:
    """Each player's Classic counters and the league's, from the core's replay of each log."""
    players: dict[str, Counter[str]] = {p: Counter() for p in PLAYERS}
    league: Counter[str] = Counter()
    for game_id in game_ids:
        events = app.game_events(game_id)
        for event in events:
            if topic(event) == "BombDeclared":
                players[PLAYERS[event.seat]]["bombs_declared"] += 1
            elif topic(event) == "BombJoined":
                players[PLAYERS[event.seat]]["bombs_joined"] += 1
        replay = replay_in_domain(events)
        final = replay.game
        for seat, player in enumerate(PLAYERS):
            owed = final.bomb_signs[seat] if final.bomb_signs else ()
            crossed = final.bomb_signs_crossed[seat] if final.bomb_signs_crossed else ()
            players[player]["bomb_signs"] += len(owed) + len(crossed)
            players[player]["bomb_signs_crossed"] += len(crossed)
        for deal in replay.deals:
            result = deal.result
            assert result is not None
            if result.kind is Kind.RASPASY:
                league["bomb_deals"] += deal.bomb > 0
                continue
            row = players[PLAYERS[result.declarer]]
            if deal.dark:
                league["dark_games"] += 1
                kind = "dark_misere" if result.kind is Kind.MISERE else "dark"
                row[f"{kind}_declared"] += 1
                row[f"{kind}_made"] += made(result) or result.kind is Kind.PREFERANS
            if deal.no_talon:
                league["no_talon_games"] += 1
                row["no_talon_declared"] += 1
                row["no_talon_made"] += made(result) or result.kind is Kind.PREFERANS
    return players, league


def _counted(stats: dict[str, Any]) -> dict[str, int]:
    c = stats["classic"]
    return {
        "bombs_declared": c["bombs_declared"],
        "bombs_joined": c["bombs_joined"],
        "bomb_signs": c["bomb_signs"],
        "bomb_signs_crossed": c["bomb_signs_crossed"],
        **{
            f"{k}_{n}": c[k][n]
            for k in ("dark", "dark_misere", "no_talon")
            for n in ("declared", "made")
        },
    }


def test_classic_league_bombs_dark_and_no_talon_counted_rebuild_equals_incremental(
    app: PreferansApplication,
) -> None:
    live = stats_runner(app, batch=29)
    game_ids: list[uuid.UUID] = []
    seen: Counter[str] = Counter()
    # Each game's deals come from a fresh secret seed: play games until the league holds a
    # bomb declared and joined, a dark game, a game without talon and a crossed-out sign.
    for attempt in range(40):  # generous: a game without talon can take many games
        game_id = create(app, RULES, league=LEAGUE).game_id
        play(app, game_id, classic_policy(random.Random(f"stats-{attempt}")))
        game_ids.append(game_id)
        live.catch_up()  # incremental, game by game (and mid-batch: batch=29)
        players, league = _expected(app, game_ids)
        seen = sum(players.values(), Counter())
        if (
            all(
                seen[k]
                for k in ("bombs_declared", "bombs_joined", "dark_declared", "bomb_signs_crossed")
            )
            and league["no_talon_games"]
        ):
            break
    assert seen["bombs_declared"] and seen["bombs_joined"] and seen["bomb_signs_crossed"]
    assert seen["dark_declared"] and league["no_talon_games"]
    # The three initial bomb rounds give every player 9 signs a game (TV-26's "по 9 бомб").
    assert all(players[p]["bomb_signs"] >= 9 * len(game_ids) for p in PLAYERS)

    for player in PLAYERS:
        stats = q.player_stats(app.db, LEAGUE, player)
        assert stats is not None
        expected = {k: players[player][k] for k in _counted(stats)}
        assert _counted(stats) == expected, player
    totals = q.league_totals(app.db, LEAGUE)
    assert totals is not None and totals["settlement_sum"] == "0"
    assert totals["bomb_deals"] == league["bomb_deals"] >= 9 * len(game_ids)
    assert totals["dark_games"] == league["dark_games"]
    assert totals["no_talon_games"] == league["no_talon_games"]

    incremental = dump_tables(app.db, STATS_TABLES)
    stats_runner(app, batch=500).rebuild()
    assert dump_tables(app.db, STATS_TABLES) == incremental


def test_stats_tables_of_an_earlier_version_gain_the_new_columns(
    app: PreferansApplication,
) -> None:
    """A store whose stats tables were made before the Classic columns (and the deal's dealer
    of issue 13, kept for tables of four or five seats): the runner adds them with their
    defaults, and the tables then equal a rebuild's (no event before Classic counts towards
    them; a three-seat game keeps no dealer)."""
    live = stats_runner(app)
    game_id = create(app, RuleSet(pool_target=2), league="old").game_id
    play(app, game_id)
    live.catch_up()
    rebuilt = dump_tables(app.db, STATS_TABLES)
    old = {
        "stats_players": CLASSIC_COUNTERS,
        "stats_leagues": ("bomb_deals", "dark_games", "no_talon_games"),
        "stats_games": ("classic", "dealer"),
    }
    with app.db.transaction() as c:
        for table, columns in old.items():
            for column in columns:
                c.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    with app.db.reading() as c:
        c.execute("SELECT * FROM stats_players LIMIT 0")
        assert "bombs_declared" not in {d[0] for d in c.description or ()}
    stats_runner(app).catch_up()  # a runner of this version starts on the old tables
    assert dump_tables(app.db, STATS_TABLES) == rebuilt


def test_birds_are_counted_as_signs_and_crossed_like_them(app: PreferansApplication) -> None:
    """The simplified Classic variants (S000 l.651, l.653; docs/SYSTEMS.md A-18, A-19): a bird
    is a sign (``bomb_signs``) and a game made on it crosses it (``bomb_signs_crossed``); the
    projection derives the birds from the events as the rules core does (the third pass in a
    row of «Хулиганка», every seat on each raspasy of the simplified Classic), and no bird
    deal counts as a bomb deal."""
    live = stats_runner(app, batch=29)
    for system in ("hooligan", "classic-simple"):
        league = f"birds-{system}"
        rules = rule_set(system).with_options(pool_target=6)
        game_ids: list[uuid.UUID] = []
        for attempt in range(10):
            game_id = create(app, rules, league=league).game_id
            policy = random_policy(random.Random(f"birds-{system}-{attempt}"), bot_share=0.7)
            play(app, game_id, policy, until_time_deals=16)
            game_ids.append(game_id)
            live.catch_up()
            players, totals = _expected(app, game_ids)
            seen = sum(players.values(), Counter())
            if seen["bomb_signs"] and seen["bomb_signs_crossed"]:
                break
        assert seen["bomb_signs"] and seen["bomb_signs_crossed"], system
        assert totals["bomb_deals"] == 0
        for player in PLAYERS:
            stats = q.player_stats(app.db, league, player)
            assert stats is not None
            expected = {k: players[player][k] for k in _counted(stats)}
            assert _counted(stats) == expected, (system, player)
        counted = q.league_totals(app.db, league)
        assert counted is not None and counted["bomb_deals"] == 0
    incremental = dump_tables(app.db, STATS_TABLES)
    stats_runner(app, batch=500).rebuild()
    assert dump_tables(app.db, STATS_TABLES) == incremental
