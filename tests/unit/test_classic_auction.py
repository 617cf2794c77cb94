"""The Classic auction (issue 12; RULES.md §3.5 "Classic", §3.1 "Games without talon"; seed S000
"КЛАССИКА": "Бомба", "Игры на взятие втемную", "Мизер втемную", "Варианты правил для классики"):
bombs, dark passes and dark bids, looking at one's cards, dark misère, games and misère without
talon on the ladder, and what the auction leaves in ``DealState`` (``unseen``, ``dark``,
``no_talon``, ``bomb``, ``bombers``) for scoring.
"""

from __future__ import annotations

import pytest

from domain.rules import (
    DEFAULT,
    Action,
    Bid,
    InvalidAction,
    Kind,
    Phase,
    RuleSet,
    legal_actions,
    new_deal,
    parse_action,
    seat_view,
    shuffle_from_seed,
)
from domain.rules.actions import (
    BOMB,
    CALLS,
    DARK_CALLS,
    LOOK,
    NO_TALON_CALLS,
    PASS,
    TAKE_TALON,
    WHIST,
    Call,
    DarkCall,
    NoTalonCall,
)
from domain.rules.bids import MISERE_INDEX
from domain.rules.game import finish_deal, new_game, start_deal
from domain.rules.ruleset import Bidding
from domain.rules.state import DealState
from domain.rules.view import visible_mask
from tests.unit.rules_helpers import (
    SAMPLE,
    A,
    B,
    C,
    act,
    assert_illegal,
    cards,
    deal,
    dealt,
    play_out,
)

CLASSIC_AUCTION = DEFAULT.with_options(
    name="classic-auction",
    bombs=True,
    dark_bids=True,
    dark_misere=True,
    no_talon_levels=frozenset({6, 7, 8, 9, 10}),
    no_talon_misere=True,
)
"""The Classic auction of S000: bombs, dark bids and misère, games without talon everywhere."""
ALL = (1 << 3) - 1


def classic(rules: RuleSet = CLASSIC_AUCTION, **options: object) -> DealState:
    return deal(*SAMPLE, rules=rules.with_options(**options) if options else rules)


def raises_of(state: DealState, kind: type[Call | DarkCall | NoTalonCall]) -> list[str]:
    """The trick bids of ``kind`` (``Call``, ``DarkCall``, ``NoTalonCall``) legal now."""
    calls = [a for a in legal_actions(state) if isinstance(a, Call | DarkCall | NoTalonCall)]
    return [str(a.bid) for a in calls if type(a) is kind and not a.bid.is_misere]


# --- looking -------------------------------------------------------------------------------


def test_default_rules_start_with_every_seat_having_looked() -> None:
    state = deal(*SAMPLE)
    assert state.unseen == 0
    assert LOOK not in legal_actions(state) and BOMB not in legal_actions(state)


def test_dark_view_hides_own_cards_until_look() -> None:
    """RULES.md §3.5: a dark player's seat view shows no own cards until he looks."""
    state = classic()
    assert state.unseen == ALL
    for seat in (A, B, C):
        view = seat_view(state, seat)
        assert view.hand == 0 and view.hands == (None, None, None)
        assert visible_mask(state, seat) == 0
    looked = act(state, "look")
    assert looked.unseen == ALL & ~(1 << A) and looked.to_act == A
    assert seat_view(looked, A).hand == cards(SAMPLE[0])
    assert seat_view(looked, A).hands == (cards(SAMPLE[0]), None, None)
    assert seat_view(looked, B).hand == 0
    assert looked.auction.calls == ((A, LOOK),) and looked.auction.called == 0


def test_an_unseen_seat_may_only_look_pass_dark_or_bid_dark() -> None:
    state = classic()
    legal = legal_actions(state)
    assert legal[:2] == (LOOK, BOMB)
    assert all(type(a) in (DarkCall,) for a in legal[2:])
    assert DARK_CALLS[MISERE_INDEX] in legal and DARK_CALLS[0] in legal
    assert_illegal(state, "6♠", "look at your cards first")
    assert_illegal(state, "pass")
    seen = act(state, "look")
    assert_illegal(seen, "look", "already looked")
    assert_illegal(seen, "6♠ dark", "only a player who has not looked may bid dark")


# --- bombs ---------------------------------------------------------------------------------


def test_classic_bomb_declared_and_joined_makes_a_raspasy_on_the_bomb() -> None:
    """S000 "Бомба": "Если все игроки сказали «бомба» или «пас», то производится розыгрыш
    бомбы. При этом значок бомбы пишут себе только игроки, объявившие бомбу. Посмотревший в
    карты и сказавший «пас» этого значка не ставит"."""
    state = act(classic(), "bomb", "dark pass", "look")
    assert state.auction.bombers == (1 << A) | (1 << B)
    assert legal_actions(state)[0] == PASS  # C has looked: pass or a seven
    state = act(state, "pass")
    assert state.raspasy and state.phase is Phase.PLAY
    assert (state.bomb, state.bombers, state.unseen) == (1, (1 << A) | (1 << B), 0)
    final = play_out(state)
    assert final.result is not None and final.result.kind is Kind.RASPASY
    assert (final.bomb, final.bombers) == (1, 0b011)


def test_classic_bomb_beaten_by_seven() -> None:
    """S000: "Объявленная бомба перебивается семерной"; "Когда бомбу перебили, к примеру,
    объявлением семерной, ее не записывают"."""
    state = act(classic(), "bomb", "look")
    assert raises_of(state, Call) == ["7♠"]
    assert raises_of(state, NoTalonCall)[:1] == ["7♠"]  # no six without talon either
    assert CALLS[MISERE_INDEX] in legal_actions(state)  # misère ranks above every seven
    assert_illegal(state, "6♠")
    state = act(state, "7♠", "look", "pass")
    assert state.phase is Phase.TALON and state.declarer == B
    assert state.bid == Bid.parse("7♠")
    assert (state.bomb, state.bombers, state.dark, state.unseen) == (0, 0, False, 0)


def test_classic_bomb_beaten_by_any_dark_game() -> None:
    """S000: the bomb is beaten "любой другой игрой втемную" — a dark six will do."""
    state = act(classic(), "bomb")
    assert DARK_CALLS[0] in legal_actions(state)
    state = act(state, "6♠ dark", "look", "pass")
    assert state.declarer == B and state.dark and state.bid == Bid.parse("6♠")
    assert state.bombers == 0 and state.bomb == 0
    assert state.unseen == 1 << B  # the dark declarer has still not looked


def test_classic_the_bomber_leaves_the_auction() -> None:
    """S000: "Игрок, объявивший бомбу, в дальнейшей торговле не участвует"."""
    state = act(classic(), "bomb", "look", "7♠", "look", "7♣")
    assert state.to_act == B  # A is skipped
    state = act(state, "pass")
    assert state.declarer == C and state.bid == Bid.parse("7♣")


def test_classic_bomb_only_while_nobody_has_declared_a_game() -> None:
    """S000: a bomb is the dark pass of a player "при условии, что до него никто не объявил
    игры"; after a game is declared, his pass without looking is an ordinary pass."""
    state = act(classic(), "look", "6♠")
    legal = legal_actions(state)
    assert BOMB not in legal and PASS in legal and LOOK in legal
    assert_illegal(state, "bomb", "only while nobody has declared a game")
    state = act(state, "pass")
    assert state.unseen == (1 << B) | (1 << C) and state.auction.bombers == 0


def test_classic_a_light_pass_before_the_bomb_does_not_stop_it() -> None:
    state = act(classic(), "look", "pass", "bomb", "bomb")
    assert state.raspasy and state.bomb == 1 and state.bombers == (1 << B) | (1 << C)


def test_classic_bomb_beaten_by_rising_level_option() -> None:
    """S000 option: "перебить одинарную бомбу можно только семерной, двойную бомбу – только
    восьмерной"."""
    single = act(classic(bomb_beaten_by_rising_level=True), "bomb", "look")
    assert raises_of(single, Call) == ["7♠"]
    rules = CLASSIC_AUCTION.with_options(bomb_beaten_by_rising_level=True)
    double = act(new_deal(dealt(*SAMPLE), C, rules, bomb_streak=1), "bomb", "look")
    assert raises_of(double, Call) == ["8♠"]


def test_classic_bomb_level_limit_option() -> None:
    """S000: "Если игроки не ограничивали бомбу, то четверная – по 16, пятерная – по 32" — a
    table may limit them (here to the double): the bomb after a double is a double again."""
    rules = CLASSIC_AUCTION.with_options(bomb_level_limit=2)
    assert [rules.bomb_level(streak) for streak in range(4)] == [1, 2, 2, 2]
    assert [CLASSIC_AUCTION.bomb_level(streak) for streak in range(4)] == [1, 2, 3, 4]
    state = act(new_deal(dealt(*SAMPLE), C, rules, bomb_streak=2), "bomb", "bomb", "bomb")
    assert state.bomb == 2


# --- bombs across deals --------------------------------------------------------------------


def _game_deal(game, number: int):  # type: ignore[no-untyped-def]
    return start_deal(game, shuffle_from_seed(b"classic bombs, round after round", number))


def _finish(game, deal_state: DealState):  # type: ignore[no-untyped-def]
    return finish_deal(game._replace(deal=play_out(deal_state)))[0]


def test_classic_pass_then_bomb_in_round_two_gets_only_the_double_sign() -> None:
    """S000: "Если игрок на первом круге бомб сказал «пас», а на втором «бомба», то он
    записывает себе за двойную бомбу, не записывая одинарной"; "Двойные и тройные бомбы
    получаются на следующих кругах"."""
    game = _game_deal(new_game(CLASSIC_AUCTION, C), 1)
    first = act(game.deal, "bomb", "bomb", "look", "pass")  # A, B bomb; C looked and passed
    assert (first.bomb, first.bombers) == (1, 0b011)
    game = _finish(game, first)
    assert game.bomb_streak == 1 and game.raspasy_streak == 0
    game = _game_deal(game, 2)
    assert game.deal is not None and game.deal.bomb_streak == 1
    h1 = game.deal.to_act
    second = act(game.deal, "look", "pass", "look", "pass", "bomb")  # the last hand bombs
    assert second.bomb == 2 and second.bombers == 1 << ((h1 + 2) % 3)
    game = _finish(game, second)
    assert game.bomb_streak == 2
    third = act(_game_deal(game, 3).deal, "bomb", "bomb", "bomb")
    assert third.bomb == 3 and third.bombers == ALL


def test_classic_after_a_declared_game_the_bomb_is_single_again() -> None:
    """S000: "После объявленной игры сдатчиком становится следующий, и бомба опять
    одинарная"."""
    game = _game_deal(new_game(CLASSIC_AUCTION, C), 1)
    game = _finish(game, act(game.deal, "bomb", "bomb", "bomb"))
    assert game.bomb_streak == 1
    game = _game_deal(game, 2)
    played = act(game.deal, "look", "6♠", "look", "pass", "look", "pass", "take talon")
    discard = next(a for a in legal_actions(played))
    played = act(played, discard, "declare 6♠", "pass", "pass")
    assert played.phase is Phase.SCORED
    game = finish_deal(game._replace(deal=played))[0]
    assert game.bomb_streak == 0
    again = act(_game_deal(game, 3).deal, "bomb", "bomb", "bomb")
    assert again.bomb == 1


def test_classic_after_a_bomb_all_passes_are_an_ordinary_single_raspasy() -> None:
    """S000: "Когда после объявленной и разыгранной бомбы все три игрока … говорят «пас»,
    производятся обычные одинарные распасы. Аналогично, после распасов и бомба одинарная"."""
    game = _game_deal(new_game(CLASSIC_AUCTION, C), 1)
    game = _finish(game, act(game.deal, "bomb", "bomb", "bomb"))
    game = _game_deal(game, 2)
    ordinary = act(game.deal, "look", "pass", "look", "pass", "look", "pass")
    assert ordinary.raspasy and ordinary.bomb == 0 and ordinary.raspasy_streak == 0
    game = _finish(game, ordinary)
    assert game.bomb_streak == 0 and game.raspasy_streak == 1
    bomb = act(_game_deal(game, 3).deal, "bomb", "bomb", "bomb")
    assert bomb.bomb == 1


# --- dark bids -----------------------------------------------------------------------------


def test_classic_dark_spade_beaten_by_an_ordinary_seven_or_clubs_dark() -> None:
    """S000: "Пика втемную перебивается обычной семерной или объявлением «трефа втемную»"."""
    state = act(classic(), "6♠ dark")
    assert raises_of(state, DarkCall)[:1] == ["6♣"]
    looked = act(state, "look")
    assert raises_of(looked, Call) == ["7♠"]
    assert_illegal(looked, "6♣")
    assert raises_of(looked, NoTalonCall)[:1] == ["7♠"]  # a six without talon does not beat it
    assert act(state, "6♣ dark").auction.tier == 2


def test_classic_dark_spade_may_be_said_after_passes_sixes_or_bombs() -> None:
    """S000: "«пика втемную» имеет право сказать игрок на первой руке или на последующих после
    паса предыдущих игроков или объявленных ими шестерных или бомб"."""
    after_sixes = act(classic(), "look", "6♠", "look", "6♣")
    assert DARK_CALLS[0] in legal_actions(after_sixes)
    after_pass = act(classic(), "look", "pass")
    assert DARK_CALLS[0] in legal_actions(after_pass)
    after_seven = act(classic(bidding=Bidding.JUMP), "look", "7♠")
    assert DARK_CALLS[0] not in legal_actions(after_seven)
    assert raises_of(after_seven, DarkCall)[0] == "7♠"  # a dark seven beats an ordinary one


def test_classic_dark_bids_on_the_ladder_option() -> None:
    """S000 option: "перебивать объявление «раз втемную» разрешается обычной заявкой «два»"."""
    state = act(classic(dark_bids_on_ladder=True), "6♠ dark", "look")
    assert raises_of(state, Call) == ["6♣"]


def test_classic_dark_misere_beaten_only_by_dark_nine_or_light_ten() -> None:
    """S000 "Мизер втемную": "Перебить заявку «мизер втемную» можно только девятерной втемную
    или десятерной в светлую"."""
    state = act(classic(), "misère dark")
    assert raises_of(state, DarkCall) == ["9♠"]
    looked = act(state, "look")
    assert raises_of(looked, Call) == ["10♠"]
    assert raises_of(looked, NoTalonCall) == ["10♠"]
    assert CALLS[MISERE_INDEX] not in legal_actions(looked)
    assert NO_TALON_CALLS[MISERE_INDEX] not in legal_actions(looked)
    assert_illegal(looked, "9♠")


def test_classic_misere_without_talon_beaten_by_nine_without_talon_or_ten_with_talon() -> None:
    """S000 Classic options: "мизер без прикупа — девятерной без прикупа или десятерной с
    прикупом"."""
    state = act(classic(), "look", "misère without talon", "look")
    assert raises_of(state, Call) == ["10♠"]
    assert raises_of(state, NoTalonCall) == ["9♠"]
    assert_illegal(state, "9♠")


def test_classic_ordinary_misere_beaten_by_a_nine() -> None:
    """S000: "В классике обычный мизер перебивается девятерной"."""
    state = act(classic(), "look", "misère", "look")
    assert raises_of(state, Call) == ["9♠"]
    assert NO_TALON_CALLS[MISERE_INDEX] in legal_actions(state)


def test_classic_no_talon_bid_beats_its_level_and_at_seven_only_seven_without_talon() -> None:
    """S000 Classic options: "торговля идет на уровне 6, можно победить заявкой без прикупа,
    но если противник перешел на уровень 7, то перебивать его игру можно уже только заявкой 7
    без прикупа"."""
    state = act(classic(bidding=Bidding.JUMP), "look", "6♥", "look")
    assert raises_of(state, NoTalonCall)[:2] == ["6♠", "6♣"]  # beats every ordinary six
    state = act(classic(), "look", "6♠", "look")
    assert raises_of(state, NoTalonCall) == ["6♠"]
    state = act(state, "6♠ without talon", "look")
    assert raises_of(state, Call) == ["7♠"] and raises_of(state, NoTalonCall)[0] == "6♣"
    state = act(state, "7♠")
    assert raises_of(state, NoTalonCall) == ["7♠"]


def test_no_talon_levels_limit_where_games_without_talon_may_be_bid() -> None:
    """S000 general ladder: only "девятерная без прикупа" (and misère without talon)."""
    state = act(deal(*SAMPLE, rules=DEFAULT.with_options(no_talon_levels=frozenset({9}))), "6♠")
    assert raises_of(state, NoTalonCall)[0] == "9♠"
    assert state.unseen == 0  # games without talon alone need no looking


# --- after the auction ---------------------------------------------------------------------


def test_dark_game_takes_the_talon_unseen_by_the_others() -> None:
    """S000: "Если игрок выторговал карты прикупа втемную …, то он получает две карты прикупа
    втемную, не показывая их другим игрокам"."""
    state = act(classic(), "6♠ dark", "look", "pass", "look", "pass")
    assert state.phase is Phase.TALON and state.dark and state.unseen == 1 << A
    assert legal_actions(state) == (TAKE_TALON, LOOK)
    assert seat_view(state, A).hand == 0
    taken = act(state, "take talon")
    assert taken.phase is Phase.DISCARD and not taken.talon_open and taken.unseen == 0
    talon = cards(SAMPLE[3])
    assert seat_view(taken, A).hand == cards(SAMPLE[0]) | talon
    for other in (B, C):
        assert seat_view(taken, other).talon == (None, None)
        assert visible_mask(taken, other) & talon == 0
    discard = next(a for a in legal_actions(taken))
    declared = act(taken, discard, "declare 7♠")
    assert declared.dark and declared.phase is Phase.WHISTING
    assert PASS in legal_actions(declared)  # one level higher: whisting as usual


def test_dark_game_declared_at_its_level_both_must_whist() -> None:
    """S000: "Если после взятия прикупа игрок объявил игру того же уровня, на который
    выторговал прикуп, то независимо от масти игры оба игрока обязаны вистовать"."""
    state = act(classic(), "6♠ dark", "look", "pass", "look", "pass", "take talon")
    discard = next(a for a in legal_actions(state))
    state = act(state, discard, "declare 6♥")
    assert legal_actions(state) == (WHIST,)
    assert_illegal(state, "pass", "both defenders must whist")
    state = act(state, "whist")
    assert legal_actions(state) == (WHIST,)
    state = act(state, "whist")
    assert state.phase is Phase.PLAY and state.open_hands == 0


def test_dark_declarer_may_look_and_switch_to_misere_before_taking_the_talon() -> None:
    """S000: "Игрок, объявивший игру на взятие втемную, по рассмотрении своих карт до того, как
    он взял прикуп, имеет право изменить свое назначение объявлением «мизер». В этом случае
    прикуп берется в открытую и играется обычный мизер"."""
    state = act(classic(), "6♠ dark", "look", "pass", "look", "pass")
    assert_illegal(state, "misère")
    looked = act(state, "look")
    assert legal_actions(looked) == (TAKE_TALON, CALLS[MISERE_INDEX])
    switched = act(looked, "misère")
    assert switched.bid is not None and switched.bid.is_misere and not switched.dark
    taken = act(switched, "take talon")
    assert taken.talon_open and seat_view(taken, B).talon[0] is not None
    discard = next(a for a in legal_actions(taken))
    assert [str(a) for a in legal_actions(act(taken, discard))] == ["declare misère"]


def test_dark_misere_is_taken_unseen_and_played_closed() -> None:
    """S000 "Мизер втемную": "он берет две карты прикупа, не показывая их игрокам. Розыгрыш
    ведется также втемную"."""
    state = act(classic(), "misère dark", "look", "pass", "look", "pass")
    assert state.dark and state.bid is not None and state.bid.is_misere
    assert legal_actions(state) == (TAKE_TALON, LOOK)
    state = act(state, "take talon")
    assert not state.talon_open
    state = act(state, next(a for a in legal_actions(state)), "declare misère")
    assert state.phase is Phase.PLAY and state.open_hands == 0 and state.whist.open is False


def test_no_talon_contract_puts_the_talon_aside_shown_to_all() -> None:
    """S000: "Если игрок объявил игру без прикупа, то прикуп открывается, рассматривается и
    убирается в снос"."""
    state = act(classic(), "look", "6♠ without talon", "look", "pass", "look", "pass")
    talon = cards(SAMPLE[3])
    assert state.phase is Phase.CONTRACT and state.no_talon and not state.dark
    assert state.discard == talon and state.play.hands[A] == cards(SAMPLE[0])
    for seat in (A, B, C):
        assert visible_mask(state, seat) & talon == talon
    state = act(state, "declare 6♠")
    assert state.phase is Phase.WHISTING and state.no_talon


def test_no_talon_talon_put_aside_unseen_option() -> None:
    """S000: "В некоторых компаниях прикуп в этом случае не открывается"."""
    state = act(classic(no_talon_shown=False), "look", "6♠ without talon")
    state = act(state, "look", "pass", "look", "pass")
    talon = cards(SAMPLE[3])
    for seat in (A, B, C):
        assert visible_mask(state, seat) & talon == 0
        assert seat_view(state, seat).discard is None


# --- notation and options ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("look", LOOK),
        ("bomb", BOMB),
        ("пас втемную", BOMB),
        ("6♠ dark", DARK_CALLS[0]),
        ("6s втемную", DARK_CALLS[0]),
        ("misère dark", DARK_CALLS[MISERE_INDEX]),
        ("7♠ without talon", NO_TALON_CALLS[Bid.parse("7♠").index]),
        ("misere без прикупа", NO_TALON_CALLS[MISERE_INDEX]),
    ],
)
def test_classic_calls_read_back_from_their_notation(text: str, action: object) -> None:
    assert parse_action(text) == action
    assert parse_action(str(action)) == action


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"dark_bids_on_ladder": True}, "rules.dark_bids_on_ladder"),
        ({"bomb_beaten_by_rising_level": True}, "rules.bomb_beaten_by_rising_level"),
        ({"bomb_level_limit": 3}, "rules.bomb_level_limit"),
        ({"no_talon_shown": False}, "rules.no_talon_shown"),
        ({"no_talon_levels": frozenset({5})}, "rules.no_talon_levels"),
    ],
)
def test_classic_auction_options_need_their_feature(options: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidAction) as refused:
        DEFAULT.with_options(**options)
    assert refused.value.field == field


def test_classic_auction_options_round_trip_through_their_json_form() -> None:
    assert RuleSet.from_dict(CLASSIC_AUCTION.to_dict()) == CLASSIC_AUCTION


# --- the API -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "kind"),
    [
        (LOOK, "look"),
        (BOMB, "bomb"),
        (DARK_CALLS[0], "dark_bid"),
        (DARK_CALLS[MISERE_INDEX], "dark_bid"),
        (NO_TALON_CALLS[Bid.parse("9NT").index], "no_talon_bid"),
        (NO_TALON_CALLS[MISERE_INDEX], "no_talon_bid"),
    ],
)
def test_classic_calls_round_trip_through_the_api_action(action: object, kind: str) -> None:
    from service.api.mapping import action_from_proto, action_to_proto

    message = action_to_proto(action)  # type: ignore[arg-type]
    assert message.WhichOneof("kind") == kind
    assert action_from_proto(message) == action


def test_the_api_seat_view_hides_own_cards_until_look() -> None:
    """The service's seat view follows ``seat_view``: no ``hand`` for a seat that has not
    looked; the unseen seats and, later, the bomb are listed."""
    from service.api.mapping import seat_view_to_proto
    from tests.unit.test_decisions import SEED
    from tests.unit.test_decisions import new_game as new_aggregate

    game = new_aggregate(rules=CLASSIC_AUCTION)
    deal_state = game.state.deal
    assert deal_state is not None
    h1 = deal_state.to_act
    view = seat_view_to_proto(game, h1)
    assert list(view.hand) == [] and list(view.unseen) == [0, 1, 2]
    assert [a.WhichOneof("kind") for a in view.legal][:2] == ["look", "bomb"]
    game.act(h1, LOOK, "look", SEED)
    view = seat_view_to_proto(game, h1)
    assert len(view.hand) == 10 and h1 not in view.unseen
    assert list(seat_view_to_proto(game, (h1 + 1) % 3).hand) == []
    game.act((h1 + 0) % 3, PASS, "pass", SEED)
    game.act((h1 + 1) % 3, BOMB, "bomb", SEED)
    game.act((h1 + 2) % 3, BOMB, "join", SEED)
    view = seat_view_to_proto(game, h1)
    assert view.bomb == 1 and sorted(view.bombers) == sorted({(h1 + 1) % 3, (h1 + 2) % 3})
    assert len(view.hand) == 10 and list(view.unseen) == []


def test_classic_a_misere_beaten_by_a_misere_without_talon_may_only_pass() -> None:
    """RULES.md §1.3: an overbid misère caller may only pass; S000: "Мизер без прикупа …
    старше девятерной" — it beats the ordinary misère."""
    state = act(classic(), "look", "misère", "look", "misère without talon", "look", "pass")
    assert legal_actions(state) == (PASS,)
    state = act(state, "pass")
    assert state.declarer == B and state.no_talon and state.bid is not None
    assert state.bid.is_misere


def test_a_bomb_deal_is_exported_in_its_hand_record_and_verifies() -> None:
    """Issue 12: the Classic decisions are exported in hand records (calls and outcome)."""
    from domain.handrecord import record_from_deal, render_text, validate, verify_record

    start = classic()
    bombed = act(start, "bomb", "bomb", "look", "pass")
    final = play_out(bombed)
    actions: list[tuple[int, Action]] = [(A, BOMB), (B, BOMB), (C, LOOK), (C, PASS)]
    actions += _plays(bombed, final)
    record = validate(record_from_deal(start, actions))
    section = record["deals"][0]
    assert [c["call"] for c in section["auction"]] == ["bomb", "bomb", "look", "pass"]
    assert section["classic"] == {
        "bomb_streak": 0,
        "bomb": 1,
        "bombers": [A, B],
        "dark": False,
        "no_talon": False,
    }
    assert verify_record(record).consistent
    assert "Classic   bomb of level 1 declared by A, B" in render_text(record)


def _plays(start: DealState, final: DealState) -> list[tuple[int, Action]]:
    """The card plays from ``start`` to ``final`` (seat, action), from the tricks played."""
    from domain.rules.actions import PLAYS

    assert not start.play.history
    return [(s, PLAYS[c]) for trick in final.play.history for s, c in trick.cards]


def test_the_decision_table_tells_a_bomb_from_its_joining_and_a_switch_from_a_misere() -> None:
    """Each Classic decision is its own event; one recorded where another belongs is a misfit
    the audit reports (domain/model/decisions.py)."""
    from domain.model.decisions import BY_NAME, record

    fresh = classic()
    standing = act(fresh, "bomb")
    assert record(BOMB, fresh)[0].name == "BombDeclared"
    assert record(BOMB, standing)[0].name == "BombJoined"
    declared = BY_NAME["BombDeclared"]
    assert not declared.fits(BOMB, standing)
    assert declared.misfit is not None and "joined" in declared.misfit(standing)
    talon = act(fresh, "6♠ dark", "look", "pass", "look", "pass", "look")
    misere = CALLS[MISERE_INDEX]
    assert record(misere, talon)[0].name == "DarkSwitchedToMisere"
    assert record(misere, act(fresh, "look"))[0].name == "MisereCalled"
    assert record(LOOK, fresh)[0].name == "CardsLooked"
    assert record(DARK_CALLS[0], fresh) == (BY_NAME["DarkBidCalled"], {"bid": "6♠"})
    no_talon = NO_TALON_CALLS[MISERE_INDEX]
    assert record(no_talon, fresh) == (BY_NAME["NoTalonBidCalled"], {"bid": "misère"})


def test_the_view_lists_the_bombers_only_while_the_bomb_stands_or_is_played() -> None:
    standing = act(classic(), "bomb")
    assert seat_view(standing, B).bombers == 1 << A
    beaten = act(standing, "look", "7♠")
    assert seat_view(beaten, C).bombers == 0
    played = act(standing, "bomb", "bomb")
    assert seat_view(played, A).bombers == ALL and seat_view(played, A).bomb == 1
