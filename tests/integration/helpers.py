"""Helpers of the store integration tests: playing games through the application, replaying the
log through the pure rules core, dumping view tables, finding cards in projected views."""

from __future__ import annotations

import json
import random
import sqlite3
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import psycopg
import pytest
from eventsourcing.persistence import StoredEvent

from domain.bots import make_bot
from domain.model import EVENT_PREFIX, Game
from domain.model.codec import entry_to_dict, score_to_dict, settlement_to_strings
from domain.model.replay import CLOCK_ONLY, advance
from domain.model.terms import bot_player_id
from domain.rules import (
    CARDS,
    Action,
    Call,
    Claim,
    DealState,
    Declare,
    Discard,
    GameState,
    PlayCard,
    RuleSet,
    SeatView,
    Shuffle,
    actor,
    apply,
    awaiting_order,
    finish_deal,
    game_orderer,
    new_game,
    parse_action,
    replace_player,
    seat_view,
    settle_game,
    start_deal,
)
from domain.rules.start import initial_deals
from projections.db import Database
from service.app.application import CreatedGame, PreferansApplication

Policy = Callable[[SeatView], Action]
R = TypeVar("R")

AppFactory = Callable[..., PreferansApplication]
"""``open_app(cls=PreferansApplication)``: a new application object on the test's store."""

BOT: Policy = make_bot()
PLAYERS = ["ann", "bob", "cid"]
VIEW_TABLES = (
    "games",
    "stats_games",
    "stats_players",
    "stats_leagues",
    "stats_pairs",
    "stats_results",
    "ledger_games",
    "ledger_entries",
    "ledger_balances",
    "lobby_tables",
)
"""The tables of the read models (``projections.PROJECTION_NAMES``)."""
CARD_TEXTS = frozenset(str(card) for card in CARDS)


def create(app: PreferansApplication, rules: RuleSet | None = None, **kwargs: Any) -> CreatedGame:
    """A new game with a fresh request id."""
    request_id = f"create-{uuid.uuid4()}"
    bots = kwargs.get("bot_seats", ())
    players = [bot_player_id(s) if s in bots else p for s, p in enumerate(PLAYERS)]
    if rules is None:
        return app.create_game(players, request_id, **kwargs)
    return app.create_game(players, request_id, rules=rules, **kwargs)


def random_policy(rng: random.Random, bot_share: float = 0.5) -> Policy:
    """Sometimes the bot's choice, otherwise any legal action but a claim (explores misère,
    open defence, half-whists and other rarer paths that bots seldom choose)."""

    def policy(view: SeatView) -> Action:
        if rng.random() < bot_share:
            return BOT(view)
        choices = [a for a in view.legal if not isinstance(a, Claim)]
        return rng.choice(choices or list(view.legal))

    return policy


def play(
    app: PreferansApplication,
    game_id: uuid.UUID,
    policy: Policy = BOT,
    *,
    stop: Callable[[Game], bool] | None = None,
    after: Callable[[Game], None] | None = None,
    prefix: str = "cmd",
    until_time_deals: int = 4,
) -> list[tuple[int, Action]]:
    """Play through the application until the game ends (or ``stop(game)``); each seat's policy
    sees only that seat's view. ``after(game)`` runs after each command. Returns what was sent.

    A game to be ordered (Classic, ``rules.order_game``) is ordered by its orderer: the agreed
    ``pool_target`` and, until time, an end time an hour after the application's clock. A game
    played until time (``play_until_time``) ends only by time: after ``until_time_deals``
    deals of the ordered pool the application's ``clock`` is moved to the ordered end time,
    so the next decision records ``TimeCalled`` (the service edge's own path)."""
    sent: list[tuple[int, Action]] = []
    while True:
        game = app.get_game(game_id)
        if game.finished or (stop is not None and stop(game)):
            return sent
        order_if_awaited(app, game, prefix)
        game = app.get_game(game_id)
        time_up_after(app, game, until_time_deals)
        deal = game.deal
        assert deal is not None
        seat = actor(deal)
        action = policy(seat_view(deal, seat))
        result = app.act(game_id, seat, action, request_id=f"{prefix}-{game.version}")
        assert not result.replayed
        sent.append((seat, action))
        if after is not None:
            after(app.get_game(game_id))


def order_if_awaited(app: PreferansApplication, game: Game, prefix: str = "cmd") -> bool:
    """Order a game that waits for its order (Classic): the orderer orders the agreed pool
    and, in a game played until time, an end time an hour after the application's clock;
    a robber also imposes ``ROBBER_ORDER``."""
    if not awaiting_order(game.state):
        return False
    rules = game.state.rules
    ends_at = int(app.clock()) + 3600 if rules.ending_by_time else 0
    seat = game_orderer(game.state)
    obligations = ROBBER_ORDER if rules.robber else None
    request = f"{prefix}-order-{game.version}"
    app.order_game(game.id, seat, rules.pool_target, ends_at, request, obligations=obligations)
    return True


ROBBER_ORDER = {"dark_misere": 1, "misere": 1, "eight": 1}
"""What a robber (rule option ``robber``) orders in the helpers' games (S000 "Разбойник")."""


def time_up_after(app: PreferansApplication, game: Game, deals: int) -> None:
    """In a game played until its ordered end time, once ``deals`` deals of the ordered pool
    have been dealt, move the application's clock to the end time (the next decision then
    finds the time up)."""
    order = game.state.order
    if order is None or not order.ends_at or game.state.time_called:
        return
    if game.state.deal_number - initial_deals(game.state.rules) >= deals:
        ends_at = order.ends_at
        app.clock = lambda: float(ends_at)


def topic(event: Any) -> str:
    name: str = type(event).TOPIC
    return name.removeprefix(EVENT_PREFIX)


_NO_ARGUMENT = {
    "HereSaid": "here",
    "AuctionPassed": "pass",
    "WhistPassed": "pass",
    "TalonTaken": "take talon",
    "WhistCalled": "whist",
    "WhistReturned": "whist",
    "WhistReconsidered": "whist",
    "TenChecked": "whist",
    "OwnWhistOffered": "own whist",
    "HalfWhistCalled": "half-whist",
    "MisereCalled": "misère",
    "ClaimAccepted": "accept",
    "ClaimRejected": "reject",
    "WithoutThreeGone": "concede",
    "UnderbidClaimed": "underbid",
    "UnderbidWaived": "pass",
    "PreferansDeclared": "preferans",
    "CardsLooked": "look",
    "BombDeclared": "bomb",
    "BombJoined": "bomb",
    "DarkSwitchedToMisere": "misère",
}


def event_action(event: Any) -> Action | None:
    """The player's action an event records, read back through the notation (``None`` for the
    events that record no decision: creation, dealing, scoring, the end)."""
    name = topic(event)
    if name in _NO_ARGUMENT:
        return parse_action(_NO_ARGUMENT[name])
    if name == "BidCalled":
        return parse_action(event.bid)
    if name == "DarkBidCalled":
        return parse_action(f"{event.bid} dark")
    if name == "NoTalonBidCalled":
        return parse_action(f"{event.bid} without talon")
    if name == "CardsDiscarded":
        return parse_action(f"discard {event.cards}")
    if name == "ContractDeclared":
        return parse_action(f"declare {event.contract}")
    if name == "OwnWhistAnswered":
        return parse_action("allow" if event.allow else "refuse")
    if name == "DefenceChosen":
        return parse_action("open" if event.open else "closed")
    if name == "CardPlayed":
        return parse_action(f"play {event.card}")
    if name == "ClaimMade":
        return Claim(tuple(event.tricks))
    if name == "WriteOffChosen":
        return parse_action("write off" if event.write_off else "to pool")
    assert name in (
        "GameCreated",
        "DealDealt",
        "DealScored",
        "GameFinished",
        "TimeCalled",
        "EarlyStopAgreed",
        "PlayerReplaced",
        "GameOrdered",
    ), name
    return None


@dataclass
class DomainReplay:
    """A game recomputed from its log by the pure rules core alone."""

    game: GameState
    actions: list[tuple[int, Action]] = field(default_factory=list)
    scored: list[dict[str, Any]] = field(default_factory=list)
    """Per deal: number, kind, declarer, contract, tricks, score and entry as plain data."""
    settlement: list[str] | None = None
    deals: list[DealState] = field(default_factory=list)
    """Each deal's final state as the core scored it (Classic marks, bombers, result)."""


def replay_in_domain(events: Sequence[Any]) -> DomainReplay:
    """new_game; each DealDealt -> start_deal(Shuffle(deck, talon_pair)); each decision ->
    apply; each deal's end -> finish_deal (and settle once every pool is closed)."""
    created = events[0]
    assert topic(created) == "GameCreated"
    rules = RuleSet.from_dict(created.rules)
    replay = DomainReplay(new_game(rules, created.first_dealer))
    for event in events[1:]:
        name = topic(event)
        game = replay.game
        if name == "DealDealt":
            replay.game = start_deal(game, Shuffle(tuple(event.deck), event.talon_pair))
            assert replay.game.deal_number == event.number
        elif name == "DealScored":
            deal = game.deal
            assert deal is not None and deal.result is not None
            after, score, entry = finish_deal(game)
            replay.deals.append(deal)
            replay.scored.append(
                {
                    "number": game.deal_number,
                    "kind": deal.result.kind.value,
                    "declarer": deal.result.declarer,
                    "contract": "" if deal.result.contract is None else str(deal.result.contract),
                    "tricks": list(deal.result.tricks),
                    "score": score_to_dict(score),
                    "entry": entry_to_dict(entry),
                }
            )
            replay.game = after
            if after.finished:
                replay.settlement = settlement_to_strings(settle_game(after))
        elif name in (
            "GameFinished",
            "GameCreated",
            "StakesSettled",
            "StakesAdjusted",
            *CLOCK_ONLY,
        ):
            pass  # the ledger moves money, not the game (docs/STAKES.md)
        elif name == "PlayerReplaced":
            replay.game = replace_player(game, event.seat)
        elif name in ("TimeCalled", "EarlyStopAgreed", "GameOrdered"):
            replay.game = advance(game, event)
            if replay.game.finished:
                replay.settlement = settlement_to_strings(settle_game(replay.game))
        else:
            action = event_action(event)
            assert action is not None and game.deal is not None
            replay.game = game._replace(deal=apply(game.deal, action, event.seat))
            replay.actions.append((event.seat, action))
    return replay


def fold(events: Iterable[Any]) -> Game:
    """The aggregate obtained by applying events in order (what a replay must equal)."""
    game: Any = None
    for event in events:
        game = event.mutate(game)
    assert isinstance(game, Game)
    return game


def dump_tables(
    db: Database, tables: Sequence[str] = VIEW_TABLES
) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every view table, in a stable order, columns by name (a column added to
    a table of an earlier version comes last, a new table's has it in its place)."""
    dump: dict[str, list[tuple[Any, ...]]] = {}
    with db.reading() as c:
        for table in tables:
            c.execute(f"SELECT * FROM {table} LIMIT 0")
            names = sorted(column[0].lower() for column in c.description or ())
            c.execute(f"SELECT {', '.join(names)} FROM {table}")
            dump[table] = sorted(tuple(row) for row in c.fetchall())
    return dump


def tracking_positions(db: Database) -> dict[str, int]:
    with db.reading() as c:
        c.execute("SELECT name, position FROM projection_tracking")
        return {str(name): int(position) for name, position in c.fetchall()}


_NOT_CARDS = frozenset({"auction", "bid", "contract", "whist_calls"})
"""Fields holding calls; a call like ``7♠`` is written like the card 7♠ but is no card."""


def cards_in_view(data: Any, key: str = "") -> set[str]:
    """Every card named anywhere in a projected seat view (read structurally: bids are skipped,
    legal actions are parsed, any other string is split into words)."""
    found: set[str] = set()
    if key in _NOT_CARDS:
        return found
    if isinstance(data, dict):
        for name, value in data.items():
            found |= cards_in_view(value, name)
    elif isinstance(data, list):
        if key == "legal":
            for text in data:
                action = parse_action(text)
                if isinstance(action, PlayCard):
                    found.add(str(action.card))
                elif isinstance(action, Discard):
                    found.update(str(c) for c in action.cards)
                else:
                    assert isinstance(action, Call | Declare) or not (
                        set(str(action).split()) & CARD_TEXTS
                    ), text
        else:
            for item in data:
                found |= cards_in_view(item, key)
    elif isinstance(data, str):
        found.update(word for word in data.replace(",", " ").split() if word in CARD_TEXTS)
    return found


# --------------------------------------------------------------------------------------------
# raw access to the stored events (to write an old-format event, as an old version would have)


def events_table(app: PreferansApplication) -> str:
    """The name of the application's events table (``stored_events``, ``preferans_events``)."""
    recorder: Any = app.recorder
    return str(recorder.events_table_name)


def stored_state(app: PreferansApplication, game_id: uuid.UUID, version: int) -> dict[str, Any]:
    (stored,) = app.recorder.select_events(game_id, gt=version - 1, lte=version)
    state: dict[str, Any] = json.loads(stored.state)
    return state


def execute_raw(
    env: dict[str, str], statements: Sequence[tuple[str, tuple[Any, ...]]]
) -> list[int]:
    """Run SQL (``?`` placeholders) directly on the test's store, bypassing the library, in
    one transaction; return each statement's row count."""
    if env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite":
        conn = sqlite3.connect(env["SQLITE_DBNAME"])
        with conn:
            counts = [conn.execute(query, params).rowcount for query, params in statements]
        conn.close()
        return counts
    with psycopg.connect(
        dbname=env["POSTGRES_DBNAME"],
        host=env["POSTGRES_HOST"],
        port=int(env["POSTGRES_PORT"]),
        user=env["POSTGRES_USER"],
        options=f"-c search_path={env['POSTGRES_SCHEMA']}",
    ) as pg:
        return [pg.execute(q.replace("?", "%s"), params).rowcount for q, params in statements]


def stored_id(env: dict[str, str], game_id: uuid.UUID) -> Any:
    """A game id as the store keeps it (SQLite: hex text; PostgreSQL: a uuid)."""
    return game_id.hex if env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite" else game_id


def rewrite_stored_state(
    env: dict[str, str], table: str, game_id: uuid.UUID, version: int, state: dict[str, Any]
) -> None:
    """Overwrite one stored event's state directly in the database, bypassing the library."""
    data = json.dumps(state, separators=(",", ":")).encode()
    query = f"UPDATE {table} SET state = ? WHERE originator_id = ? AND originator_version = ?"
    assert execute_raw(env, [(query, (data, stored_id(env, game_id), version))]) == [1]


def store_argument(env: dict[str, str]) -> str:
    """The ``--store`` argument naming the test's store."""
    if env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite":
        return env["SQLITE_DBNAME"]
    password = env.get("POSTGRES_PASSWORD", "")
    user = env["POSTGRES_USER"] + (f":{password}" if password else "")
    return (
        f"postgresql://{user}@{env['POSTGRES_HOST']}:{env['POSTGRES_PORT']}/"
        f"{env['POSTGRES_DBNAME']}?schema={env['POSTGRES_SCHEMA']}"
    )


def awkward_events(game: uuid.UUID, versions: range) -> list[StoredEvent]:
    """Stored events of ``game`` whose states hold bytes that need escaping in SQL text and in
    a composite's text form (the recorders' tests)."""
    state = b"\x00\x01'\"\\,(){}%s\xff" * 3
    return [StoredEvent(game, v, f"t.{v}", state + bytes([v])) for v in versions]


def write_alike(ours: Any, library: Any) -> None:
    """The same batches (several games, one batch of two) through both recorders: the same
    notification ids, and the states read back in order."""
    games = [uuid.uuid4() for _ in range(3)]
    batches = [awkward_events(games[0], range(1, 4)), awkward_events(games[1], range(1, 2))]
    batches.append(awkward_events(games[2], range(1, 6)) + awkward_events(games[0], range(4, 6)))
    for batch in batches:
        assert ours.insert_events(batch) == library.insert_events(batch)
    assert [n.state for n in ours.select_notifications(1, 100)] == [
        e.state for batch in batches for e in batch
    ]


def store_recorder(app: PreferansApplication, flavor: str, kind: type[R]) -> R:
    """The application's recorder, of class ``kind`` (the test is skipped on the other store)."""
    if app.db.flavor != flavor:
        pytest.skip(f"a {flavor} recorder")
    recorder = app.recorder
    assert isinstance(recorder, kind)
    return recorder
