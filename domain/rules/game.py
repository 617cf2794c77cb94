"""A whole game (pulya): deals in turn, the dealer rotating, until every pool is closed.

``GameState`` is immutable like a deal. ``start_deal`` deals the next deal from a given shuffle,
``finish_deal`` writes the scored deal onto the sheet, passes the deal on and counts raspasy in
a row (both by the conventions of ``domain.rules.raspasy``). ``play_game`` is the pure
whole-game driver: from a seed and three policies to the final sheet and settlement.

Why over 400 lines: the whole-game state machine (deal, finish, the order of a Classic game,
robbers, signs, stopping early) is one immutable ``GameState`` with its transitions; the rules
of a deal live in their own modules, this one only chains them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from domain.rules.actions import Action
from domain.rules.birds import gora_written_off, sign_givers
from domain.rules.bombs import (
    BombLedger,
    CrossedLedger,
    first_sign,
    leaves,
    multiplied,
    signs_after,
)
from domain.rules.dealing import DealtCards, Shuffle, deal_cards, shuffle_for
from domain.rules.engine import actor, apply, new_deal
from domain.rules.errors import GameOver, IllegalAction, NotYourTurn
from domain.rules.raspasy import dealer_after, streak_after
from domain.rules.recording import Ending, InitialRounds
from domain.rules.robber import NONE, Obligations, check_obligations, fulfil, penalties
from domain.rules.ruleset import DEFAULT, RuleSet
from domain.rules.scoresheet import ScoreSheet, SheetEntry, final_sheet, record, replace, settle
from domain.rules.scoring import DealScore, score_deal
from domain.rules.seats import first_hand, next_dealer, seat_name, seat_of_hand, sitters
from domain.rules.start import (
    BOMBS,
    GameOrder,
    bombers,
    check_order,
    dealer_stays,
    initial_deals,
    initial_level,
    initial_streak,
    orderer,
)
from domain.rules.state import DealResult, DealState, Kind, Phase
from domain.rules.view import SeatView, seat_view


class DealRecord(NamedTuple):
    number: int
    dealer: int
    final: DealState
    """The scored deal state (its ``dealt``, auction, tricks: the whole deal)."""
    actions: tuple[tuple[int, Action], ...]
    score: DealScore
    entry: SheetEntry


class GameState(NamedTuple):
    rules: RuleSet
    dealer: int
    """The dealer of the current (or next) deal."""
    deal_number: int
    """Number of the current deal (1-based), 0 before the first."""
    raspasy_streak: int
    """Raspasy of the current series before the current (or next) deal (``raspasy``)."""
    sheet: ScoreSheet
    deal: DealState | None
    finished: bool
    dealer_run: int = 0
    """Deals in a row the dealer had dealt before the current (or next) one (non-sliding
    deal after raspasy, RULES.md §3.3; always 0 with the default sliding deal)."""
    # Ending (issue 11, RULES.md §3.4): races run so far, time called.
    races_run: int = 0
    time_called: bool = False
    stop_agreed: frozenset[int] = frozenset()
    """Seats that agreed to stop early during the current deal (cleared when it is scored)."""
    bomb_signs: tuple[tuple[int, ...], ...] = ()
    """Classic (issue 12, TV-26): per seat, the bomb levels he owes in the order recorded (1
    single, 2 double …); his next games are played on them, the first crossed out when made."""
    bomb_signs_crossed: CrossedLedger = ()
    """Classic: per seat, the bomb signs he crossed out by making a game on them, in order, with
    the deal and the game (the sheet shows which signs were made, S000 "Игра на бомбах")."""
    bomb_streak: int = 0
    """Classic: bomb raspasy in a row before the current (or next) deal; a bomb declared in it
    is one level higher (S000: "двойные и тройные бомбы получаются на следующих кругах");
    back to 0 after any other deal ("после объявленной игры … бомба опять одинарная",
    "после распасов и бомба одинарная")."""
    order: GameOrder | None = None
    """The order of the game (``rules.order_game``, ``GameOrdered``): its pool length replaces
    ``rules.pool_target`` from then on (``table_rules``); ``None`` before it is ordered."""
    dark_misere_played: int = 0
    """Mask of seats that have played a dark misère (the robber's obligation, ``robber_gora``)."""
    robber_owed: tuple[Obligations, ...] = ()
    """The robber's obligatory games (``RuleSet.robber``) each seat still owes, from the order
    on (``()`` when the order imposed none); once ``robber_written``, what was written."""
    robber_written: bool = False
    """Every pool has closed (the robber's deadline, S000 "до закрытия пули"): what each seat
    still owed was written to his gora then (``domain.rules.robber``)."""


_DEAL = GameState._fields.index("deal")


def with_deal(game: GameState, deal: DealState) -> GameState:
    """``game._replace(deal=deal)`` without the keyword machinery (replay's hot path)."""
    fields = list(game)
    fields[_DEAL] = deal
    return tuple.__new__(GameState, fields)


def new_game(rules: RuleSet = DEFAULT, first_dealer: int = 0) -> GameState:
    """A new pulya; the first dealer is chosen by lot at the service edge. Under the simplified
    start (``initial_rounds="gora"``) every player starts with ``initial_gora`` in gora."""
    if not 0 <= first_dealer < rules.players:
        raise IllegalAction(f"no seat {first_dealer} at a {rules.players}-player table")
    sheet = ScoreSheet.empty(rules.players)
    if rules.initial_rounds is InitialRounds.GORA:
        sheet = sheet._replace(gora=(rules.initial_gora,) * rules.players)
    return GameState(rules, first_dealer, 0, 0, sheet, None, False)


@lru_cache(maxsize=64)
def _with_pool(rules: RuleSet, pool: int) -> RuleSet:
    return rules if pool == rules.pool_target else rules.with_options(pool_target=pool)


def table_rules(game: GameState) -> RuleSet:
    """The rules the game's deals and sheet are played by: ``game.rules``, with the ordered
    pool length in place of ``pool_target`` once the game is ordered (the game's own rule set
    is never changed: this is a copy)."""
    if game.order is None:
        return game.rules
    return _with_pool(game.rules, game.order.pool)


def awaiting_order(game: GameState) -> bool:
    """Whether the game waits for its order (``rules.order_game``): the initial rounds are
    played, the game is not ordered yet and no deal is in progress."""
    return (
        game.rules.order_game
        and game.order is None
        and not game.finished
        and game.deal_number >= initial_deals(game.rules)
        and (game.deal is None or game.deal.phase is Phase.SCORED)
    )


def game_orderer(game: GameState) -> int:
    """The seat that orders the game: the largest gora, ties to the first hand of the next
    deal (``domain.rules.start.orderer``)."""
    return orderer(game.sheet.gora, first_hand(game.dealer, game.rules.players))


def order_game(
    game: GameState,
    seat: int,
    pool: int,
    ends_at: int,
    obligations: Mapping[str, object] | Obligations = NONE,
) -> GameState:
    """The largest gora orders the game (a recorded decision, S000 "заказывает игру"): the pool
    length from now on and, in a game played until time, its end time (data: never compared
    with a clock here); under ``rules.robber`` also the obligatory games every player owes
    (``domain.rules.robber``; by contract kind, e.g. ``{"misere": 1, "ten": 1}``)."""
    if not game.rules.order_game:
        raise IllegalAction("this game is not ordered (rules.order_game)")
    if game.finished:
        raise GameOver("the game is over")
    if game.order is not None:
        raise IllegalAction("the game has already been ordered")
    if not awaiting_order(game):
        raise IllegalAction("the game is ordered after the initial rounds")
    check_order(game.rules, pool, ends_at)
    given = obligations._asdict() if isinstance(obligations, Obligations) else obligations
    imposed = check_obligations(game.rules, given)
    who = game_orderer(game)
    if seat != who:
        raise NotYourTurn(
            f"{seat_name(who)} orders the game (the largest gora), not {seat_name(seat)}",
            seat=seat,
            to_act=who,
        )
    owed = (imposed,) * game.rules.players if imposed.total else ()
    return game._replace(order=GameOrder(seat, pool, ends_at, imposed), robber_owed=owed)


def start_deal(game: GameState, shuffle: Shuffle) -> GameState:
    if game.finished:
        raise GameOver("the game is over")
    if game.deal is not None and game.deal.phase is not Phase.SCORED:
        raise IllegalAction("the current deal is not finished")
    if awaiting_order(game):
        raise IllegalAction(f"{seat_name(game_orderer(game))} must order the game first")
    rules = table_rules(game)
    number = game.deal_number + 1
    dealt = deal_cards(
        shuffle.order,
        game.dealer,
        shuffle.talon_pair,
        rules.players,
        last_pair=rules.talon_last_pair,
        dummy_hand=rules.duo_dummy_hand,
    )
    deal = deal_state(
        rules, dealt, game.dealer, number, game.raspasy_streak, game.dealer_run, game.bomb_streak
    )
    return game._replace(deal=deal, deal_number=number)


def deal_state(
    rules: RuleSet,
    dealt: DealtCards,
    dealer: int,
    number: int,
    raspasy_streak: int = 0,
    dealer_run: int = 0,
    bomb_streak: int = 0,
) -> DealState:
    """Deal ``number`` of a game by ``rules`` (its table rules) right after the deal: an
    initial deal (``_initial_deal``) or an ordinary one (``new_deal``)."""
    if number <= initial_deals(rules):
        return _initial_deal(rules, dealt, dealer, number)
    return new_deal(dealt, dealer, rules, raspasy_streak, dealer_run, bomb_streak)


def _initial_deal(rules: RuleSet, dealt: DealtCards, dealer: int, number: int) -> DealState:
    """An initial deal (``domain.rules.start``): a raspasy without an auction, priced as the
    raspasy of its level in a series, or a bomb of its level with every seat a bomber."""
    level = initial_level(rules, number)
    # No auction: everyone takes up his cards and plays (nobody stays unseen, whatever a
    # Classic deal starts with).
    if rules.initial_rounds in BOMBS:
        deal = new_deal(dealt, dealer, rules)
        return deal.with_(phase=Phase.PLAY, unseen=0, bomb=level, bombers=bombers(rules, dealer))
    streak = initial_streak(rules, number)
    return new_deal(dealt, dealer, rules, streak).with_(phase=Phase.PLAY, unseen=0)


def finish_deal(game: GameState) -> tuple[GameState, DealScore, SheetEntry]:
    """Write the scored deal onto the sheet and pass the deal to the left."""
    deal = game.deal
    if deal is None or deal.result is None:
        raise IllegalAction("there is no finished deal to record")
    sign = played_sign(game, deal.result)
    rules = table_rules(game)
    score = score_deal(deal, game.sheet.any_closed(rules), sign)
    sheet, entry = write_deal(game.sheet, deal, score, rules)
    signs, crossed = _signs_after(game, deal, sign)
    races_run = game.races_run + (entry.race is not None)
    # S000 "КЛАССИКА": "после объявленной и разыгранной бомбы … производятся обычные одинарные
    # распасы": a bomb ends the raspasy series (its own level is the auction's, not the streak's).
    bomb = deal.bomb if deal.result.kind is Kind.RASPASY else 0
    if game.deal_number <= initial_deals(rules):  # the initial rounds: no raspasy series
        stays = dealer_stays(rules, game.deal_number)
        dealer = game.dealer if stays else next_dealer(game.dealer, rules.players)
        run, streak, bomb = 0, initial_streak(rules, game.deal_number + 1), 0
    else:
        dealer, run = dealer_after(rules, game.dealer, game.dealer_run, deal.result)
        streak = 0 if bomb else streak_after(rules, game.raspasy_streak, deal.result)
    played = game.dark_misere_played
    if deal.dark and deal.result.kind is Kind.MISERE:
        played |= 1 << deal.result.declarer
    owed, written = game.robber_owed, game.robber_written
    if owed and not written:
        sheet, owed, written = robber_after(sheet, owed, deal, rules)
    return (
        game._replace(
            dealer=dealer,
            dealer_run=run,
            raspasy_streak=streak,
            sheet=sheet,
            deal=None,
            finished=_ended(game, sheet, races_run),
            races_run=races_run,
            stop_agreed=frozenset(),
            bomb_signs=signs,
            bomb_signs_crossed=crossed,
            bomb_streak=bomb,
            dark_misere_played=played,
            robber_owed=owed,
            robber_written=written,
        ),
        score,
        entry,
    )


def robber_after(
    sheet: ScoreSheet, owed: tuple[Obligations, ...], deal: DealState, rules: RuleSet
) -> tuple[ScoreSheet, tuple[Obligations, ...], bool]:
    """The robber's obligations after ``deal`` (before the deadline): its declarer's game
    counts (``robber.fulfil``); if every pool is closed now, the deadline has come and what
    each still owes is written to his gora, without whists (S000 "Объявление игрок должен
    сделать до закрытия пули", "За необъявленные записать как за уход без пяти")."""
    declarer = deal.result.declarer if deal.result is not None else -1
    if declarer >= 0:
        owed = tuple(fulfil(o, deal) if s == declarer else o for s, o in enumerate(owed))
    if not sheet.all_closed(rules):
        return sheet, owed, False
    due = penalties(rules, owed)
    gora = tuple(g + p for g, p in zip(sheet.gora, due, strict=True))
    return sheet._replace(gora=gora), owed, True


def played_sign(game: GameState, result: DealResult) -> int:
    """The level of the bomb sign the declarer of ``result`` plays on: his first sign, on any
    declared game but a void one or "preferans" (Classic, TV-26); 0 on none."""
    if not game.bomb_signs or not multiplied(result.kind):
        return 0
    return first_sign(game.bomb_signs, result.declarer)


def _signs_after(game: GameState, deal: DealState, sign: int) -> tuple[BombLedger, CrossedLedger]:
    """The sign ledgers after ``deal`` (``bombs.signs_after``)."""
    assert deal.result is not None
    return signs_after(
        game.bomb_signs,
        game.bomb_signs_crossed,
        deal.result,
        bomb=deal.bomb,
        bombers=sign_givers(deal),  # the bombers, and the birds of the simplified Classic
        sign=sign,
        deal_number=game.deal_number,
        players=game.rules.players,
    )


def write_deal(
    sheet: ScoreSheet, deal: DealState, score: DealScore, rules: RuleSet
) -> tuple[ScoreSheet, SheetEntry]:
    """Write a scored deal on the sheet (``scoresheet.record``) with what the pool procedure
    needs to know of the deal: the order of its hands, the whisters penalised in it (help
    eligibility, A-16) and whether its awards are raspasy zeros."""
    result = deal.result
    assert result is not None
    order = [seat_of_hand(deal.dealer, h, rules.players) for h in range(1, rules.players + 1)]
    failed = (
        [s for s, g in enumerate(score.gora) if g > 0 and s != result.declarer]
        if result.kind in (Kind.GAME, Kind.MISERE)  # a whisted misère (S000 Classic)
        else ()
    )
    return record(
        sheet,
        score,
        rules,
        order,
        failed=failed,
        raspasy=result.kind is Kind.RASPASY,
        written_off=(result.declarer,) if result.written_off else (),
        sitters=sitters(deal.dealer, rules.players),
    )


def _ended(game: GameState, sheet: ScoreSheet, races_run: int) -> bool:
    """The ending conditions after a deal (RULES.md §3.4): every pool closed (or their sum,
    or the last race), the agreed number of deals, or time called during the deal. A game
    played on after the pools close (``play_until_time``) ends only by time, or by writing off
    gora (``gora_ending``, S000 simplified Classic); a game to be ordered is not ended by its
    pools before the order."""
    rules = table_rules(game)
    if rules.races:
        return races_run >= rules.races or game.time_called
    ordered = not (rules.order_game and game.order is None)
    pools = not rules.play_until_time and ordered
    return (
        (pools and sheet.all_closed(rules))
        or (ordered and gora_written_off(sheet, rules))
        or game.time_called
        or (rules.ending is Ending.DEALS and game.deal_number >= rules.ending_deals)
    )


def call_time(game: GameState) -> GameState:
    """Time is called (a recorded event; never a clock read here): the current deal, if any, is
    played to the end and the game then ends and is settled by the early-stop rule (§3.4)."""
    if not game.rules.ending_by_time:
        raise IllegalAction("this game is not played until time (rules.ending_by_time)")
    if game.finished:
        raise GameOver("the game is over")
    if game.time_called:
        raise IllegalAction("time has already been called")
    if game.deal is None or game.deal.phase is Phase.SCORED:
        return game._replace(time_called=True, finished=True)
    return game._replace(time_called=True)


def stop_early(game: GameState) -> GameState:
    """Every seat agreed to stop (§3.0, TV-27): the game ends now, the current deal unplayed,
    and is settled by the early-stop rule (missing pool points to gora)."""
    if game.finished:
        raise GameOver("the game is over")
    return game._replace(deal=None, finished=True)


def agree_stop(game: GameState, seat: int) -> GameState:
    """One seat agrees to stop early (a recorded decision). The agreements hold for the deal in
    progress; when every seat has agreed the game stops (``stop_early``)."""
    if game.finished:
        raise GameOver("the game is over")
    if not 0 <= seat < game.rules.players:
        raise IllegalAction(f"no seat {seat} at a {game.rules.players}-player table")
    if seat in game.stop_agreed:
        raise IllegalAction("this seat has already agreed to stop")
    agreed = game.stop_agreed | {seat}
    game = game._replace(stop_agreed=agreed)
    return stop_early(game) if len(agreed) == game.rules.players else game


MAX_REPLACEMENTS = 16
"""At most this many players may join in place of others in one game: it bounds the
settlement (one part of the sheet per account) whatever a client asks."""


def replace_player(game: GameState, seat: int) -> GameState:
    """The player at ``seat`` leaves and another joins in his place, with the others' consent
    (S000 "ПРАВИЛА ДЛЯ ОСОБЫХ СЛУЧАЕВ", TV-27; ``scoresheet.replace``). It may happen at any
    moment of a game not over: the newcomer takes the seat's hand in the deal in progress and
    that deal is his. The leaver's agreement to stop early, if any, leaves with him, and so do
    the bomb signs he owes (Classic, ``bombs.leaves``); the newcomer owes the robber his own
    dark misère. The leaver closes his pool at the length in force (an ordered one, Classic)."""
    if game.finished:
        raise GameOver("the game is over")
    if not 0 <= seat < game.rules.players:
        raise IllegalAction(f"no seat {seat} at a {game.rules.players}-player table")
    if len(game.sheet.departed) >= MAX_REPLACEMENTS:
        raise IllegalAction(f"at most {MAX_REPLACEMENTS} players may join one game")
    return game._replace(
        sheet=replace(game.sheet, seat, table_rules(game)),
        stop_agreed=game.stop_agreed - {seat},
        bomb_signs=leaves(game.bomb_signs, seat, game.rules.players),
        dark_misere_played=game.dark_misere_played & ~(1 << seat),
        robber_owed=_newcomer_owes(game, seat),
    )


def _newcomer_owes(game: GameState, seat: int) -> tuple[Obligations, ...]:
    """The robber's obligations after a player joins at ``seat``: the newcomer owes the whole
    order (what the leaver owed leaves with him), until the deadline has passed."""
    if not game.robber_owed or game.robber_written or game.order is None:
        return game.robber_owed
    imposed = game.order.obligations
    return tuple(imposed if s == seat else o for s, o in enumerate(game.robber_owed))


Policy = Callable[[SeatView], Action]
"""A player: sees only its seat's view and answers with an action."""


class GameRecord(NamedTuple):
    rules: RuleSet
    seed: bytes
    first_dealer: int
    deals: tuple[DealRecord, ...]
    sheet: ScoreSheet
    settlement: tuple[Fraction, ...]
    finished: bool
    """False if the driver stopped at ``max_deals`` (then the settlement is an early stop)."""
    order: GameOrder | None = None
    """The order of the game (``rules.order_game``), as the driver made it."""


def game_seat_view(game: GameState, seat: int) -> SeatView:
    """``seat``'s view of the game's deal with the public game context a player at the table
    sees (the sheet, the bomb signs owed, the table's pool length): what a bot weighs before
    a bomb or a dark bid, which it must decide without seeing its cards (issue 12)."""
    assert game.deal is not None
    return with_game(seat_view(game.deal, seat), game)


def with_game(view: SeatView, game: GameState) -> SeatView:
    """``view`` with the public context of ``game`` (see ``game_seat_view``)."""
    return view._replace(
        sheet=game.sheet, bomb_signs=game.bomb_signs, pool_target=table_rules(game).pool_target
    )


def play_deal(
    deal: DealState, policies: Sequence[Policy], game: GameState | None = None
) -> tuple[DealState, tuple[tuple[int, Action], ...]]:
    """Play one deal to the end, asking each seat's policy with that seat's view only (with the
    public context of ``game`` when given and the rules have a dark auction)."""
    actions: list[tuple[int, Action]] = []
    context = game if game is not None and deal.rules.dark_auction else None
    while deal.phase is not Phase.SCORED:
        seat = actor(deal)
        view = seat_view(deal, seat)
        if context is not None:
            view = with_game(view, context)
        action = policies[seat](view)
        deal = apply(deal, action, seat)
        actions.append((seat, action))
    return deal, tuple(actions)


def play_game(
    seed: bytes,
    policies: Sequence[Policy],
    rules: RuleSet = DEFAULT,
    first_dealer: int = 0,
    max_deals: int = 500,
    order: tuple[int, int] | None = None,
    time_after: int | None = None,
    obligations: Mapping[str, int] | None = None,
) -> GameRecord:
    """Play a whole pulya from ``seed`` until it ends (or ``max_deals``: an early stop). A game
    to be ordered (``rules.order_game``) is ordered with ``order`` (pool length, end time) by
    the seat whose order it is; by default the agreed ``pool_target`` and, until time, the
    end time 1. This driver has no clock: in a game played until time, time is called (as the
    event would record it) once ``time_after`` deals after the initial rounds are played, and
    never if ``time_after`` is ``None``. Under ``rules.robber`` the order imposes
    ``obligations`` (none by default)."""
    game = new_game(rules, first_dealer)
    deals: list[DealRecord] = []
    if order is None:
        order = (rules.pool_target, 1 if rules.ending_by_time else 0)
    while not game.finished and len(deals) < max_deals:
        if (
            time_after is not None
            and rules.ending_by_time
            and game.deal_number - initial_deals(rules) >= time_after
        ):
            game = call_time(game)  # between deals: the game ends now
            break
        if awaiting_order(game):
            game = order_game(game, game_orderer(game), *order, obligations or {})
        number = game.deal_number + 1
        game = start_deal(game, shuffle_for(seed, number, last_pair=rules.talon_last_pair))
        assert game.deal is not None
        final, actions = play_deal(game.deal, policies, game)
        dealer, number = game.dealer, game.deal_number
        game, score, entry = finish_deal(game._replace(deal=final))
        deals.append(DealRecord(number, dealer, final, actions, score, entry))
    return GameRecord(
        rules,
        seed,
        first_dealer,
        tuple(deals),
        game.sheet,
        settle_game(game),
        game.finished,
        game.order,
    )


def settle_game(game: GameState, sheet: ScoreSheet | None = None) -> tuple[Fraction, ...]:
    """The settlement of the game as it stands (however it ended), by its table rules, of its
    sheet (or of ``sheet``: the game's sheet with an auditor's adjustments)."""
    rules = table_rules(game)
    return settle(game_final_sheet(game, sheet), rules)


def game_final_sheet(game: GameState, sheet: ScoreSheet | None = None) -> ScoreSheet:
    """The sheet the game is settled on: ``final_sheet`` by the table rules, and the robber's
    penalty on every player who has not played a dark misère (``robber_gora``, TV-26)."""
    rules = table_rules(game)
    final = final_sheet(game.sheet if sheet is None else sheet, rules)
    if not rules.robber_gora and (not game.robber_owed or game.robber_written):
        return final
    owed = robber_penalties(game)
    return final._replace(gora=tuple(g + p for g, p in zip(final.gora, owed, strict=True)))


def robber_penalties(game: GameState) -> tuple[int, ...]:
    """What each seat owes the robber at the end: ``robber_gora`` unless he has played a dark
    misère (S000 "не выполнивший данное условие до конца игры пишет … 200 в гору"); under
    ``rules.robber``, the price of the obligatory games he still owes unless they were
    already written when every pool closed (``robber_written``)."""
    price = game.rules.robber_gora
    played = game.dark_misere_played
    agreed = tuple(0 if played >> s & 1 else price for s in range(game.rules.players))
    if not game.robber_owed or game.robber_written:
        return agreed
    ordered = penalties(table_rules(game), game.robber_owed)
    return tuple(a + o for a, o in zip(agreed, ordered, strict=True))


def results(record: GameRecord) -> list[DealResult]:
    """The result of every deal of a game, in order."""
    return [d.final.result for d in record.deals if d.final.result is not None]
