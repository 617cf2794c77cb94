"""Notation at the edges (STYLE.md §4): cards, suits, bids and actions parse and print the
forms people write, ASCII included; anything else is ``InvalidAction`` with a hint."""

from __future__ import annotations

import pytest

from domain.rules import (
    ACCEPT,
    CLOSED,
    HALF_WHIST,
    HERE,
    LADDER,
    MISERE,
    OPEN,
    PASS,
    REJECT,
    TAKE_TALON,
    WHIST,
    Action,
    Bid,
    Call,
    Card,
    Claim,
    Declare,
    Discard,
    InvalidAction,
    PlayCard,
    Rank,
    Strain,
    Suit,
    cards_of,
    format_cards,
    mask_of,
    parse_action,
    parse_cards,
)


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("7♥", Rank.SEVEN, Suit.HEARTS),
        ("10♠", Rank.TEN, Suit.SPADES),
        ("T♠", Rank.TEN, Suit.SPADES),
        ("Ts", Rank.TEN, Suit.SPADES),
        ("10s", Rank.TEN, Suit.SPADES),
        ("7h", Rank.SEVEN, Suit.HEARTS),
        ("q♦", Rank.QUEEN, Suit.DIAMONDS),
        ("Ac", Rank.ACE, Suit.CLUBS),
        (" J♡ ", Rank.JACK, Suit.HEARTS),
    ],
)
def test_card_parses_symbol_and_ascii_forms(text: str, rank: Rank, suit: Suit) -> None:
    card = Card.parse(text)
    assert (card.rank, card.suit) == (rank, suit)
    assert card == Card.of(rank, suit)


def test_card_prints_symbol_and_ascii() -> None:
    ten = Card.parse("Ts")
    assert (str(ten), ten.ascii, repr(ten)) == ("10♠", "Ts", "Card(10♠)")
    assert (str(Card.parse("Ah")), Card.parse("Ah").ascii) == ("A♥", "Ah")


def test_every_card_round_trips_through_both_forms() -> None:
    for value in range(32):
        card = Card(value)
        assert Card.parse(str(card)) == card
        assert Card.parse(card.ascii) == card


def test_ten_ranks_below_jack() -> None:
    """RULES.md §1.1: A > K > Q > J > 10 > 9 > 8 > 7."""
    order = [Card.parse(t).rank for t in ("7s", "8s", "9s", "Ts", "Js", "Qs", "Ks", "As")]
    assert order == sorted(order)
    assert Card.parse("Ts").rank < Card.parse("Js").rank


@pytest.mark.parametrize("text", ["", "7", "1s", "11s", "Xs", "7x", "10", "♠", "Kz", "A♠♠"])
def test_bad_card_is_invalid_action_with_hint(text: str) -> None:
    with pytest.raises(InvalidAction) as info:
        Card.parse(text)
    assert "is not a card" in info.value.message and "10♠" in info.value.message


def test_suit_parse_and_bad_suit() -> None:
    assert [Suit.parse(t) for t in ("♠", "c", "Diamonds", "heart")] == list(Suit)
    assert str(Suit.HEARTS) == "♥" and Suit.CLUBS.letter == "c"
    with pytest.raises(InvalidAction, match="is not a suit"):
        Suit.parse("x")


def test_parse_cards_and_format_cards() -> None:
    cards = parse_cards("7♣, 8♦ Ts")
    assert [str(c) for c in cards] == ["7♣", "8♦", "10♠"]
    mask = mask_of(parse_cards("As Ks 9s Th 7h"))
    assert format_cards(mask) == "♠ A K 9  ♥ 10 7"
    assert format_cards(0) == "—"
    assert [str(c) for c in cards_of(mask)] == ["9♠", "K♠", "A♠", "7♥", "10♥"]
    with pytest.raises(InvalidAction):
        parse_cards("7♣ 8x")


@pytest.mark.parametrize(
    ("text", "printed", "ascii"),
    [
        ("6♠", "6♠", "6s"),
        ("6s", "6♠", "6s"),
        ("7h", "7♥", "7h"),
        ("6nt", "6NT", "6nt"),
        ("7NT", "7NT", "7nt"),
        ("7БК", "7NT", "7nt"),
        ("10♦", "10♦", "10d"),
        ("10nt", "10NT", "10nt"),
        ("misère", "misère", "misere"),
        ("misere", "misère", "misere"),
        ("Мизер", "misère", "misere"),
    ],
)
def test_bid_parses_and_prints(text: str, printed: str, ascii: str) -> None:
    bid = Bid.parse(text)
    assert (str(bid), bid.ascii) == (printed, ascii)
    assert Bid.parse(bid.ascii) is bid


def test_ladder_order_and_misere_between_eights_and_nines() -> None:
    """RULES.md §1.3: 6♠ < 6♣ < 6♦ < 6♥ < 6NT < 7♠ … 8NT < misère < 9♠ … 10NT."""
    names = [str(b) for b in LADDER]
    assert names[:6] == ["6♠", "6♣", "6♦", "6♥", "6NT", "7♠"]
    assert names[14:17] == ["8NT", "misère", "9♠"]
    assert names[-1] == "10NT" and len(names) == 26
    assert Bid.parse("8NT") < MISERE < Bid.parse("9♠")
    assert Bid.ordinary(7, Strain.NO_TRUMP) == Bid.parse("7nt")
    assert Bid.parse("7♥").trump is Suit.HEARTS and Bid.parse("7nt").trump is None
    assert MISERE.trump is None and MISERE.is_misere


@pytest.mark.parametrize("text", ["5♠", "11♠", "6x", "six", "6", "♠", "", "6 spades"])
def test_bad_bid_is_invalid_action(text: str) -> None:
    with pytest.raises(InvalidAction) as info:
        Bid.parse(text)
    assert "6 to 10 tricks" in info.value.message or "6♠, 7nt or misère" in info.value.message


def test_bid_level_out_of_range_names_the_range() -> None:
    with pytest.raises(InvalidAction, match="6 to 10 tricks"):
        Bid.parse("11s")
    with pytest.raises(InvalidAction, match="6 to 10 tricks"):
        Bid.ordinary(5, Strain.SPADES)


@pytest.mark.parametrize(
    ("text", "action", "printed"),
    [
        ("6♠", Call(Bid.parse("6♠")), "6♠"),
        ("6nt", Call(Bid.parse("6NT")), "6NT"),
        ("misere", Call(MISERE), "misère"),
        ("here", HERE, "here"),
        ("тут", HERE, "here"),
        ("pass", PASS, "pass"),
        ("PASS", PASS, "pass"),
        ("take talon", TAKE_TALON, "take talon"),
        ("discard 8d 7c", Discard((Card.parse("7♣"), Card.parse("8♦"))), "discard 7♣ 8♦"),
        ("declare 7h", Declare(Bid.parse("7♥")), "declare 7♥"),
        ("declare misere", Declare(MISERE), "declare misère"),
        ("whist", WHIST, "whist"),
        ("half whist", HALF_WHIST, "half-whist"),
        ("open", OPEN, "open"),
        ("closed", CLOSED, "closed"),
        ("play 10s", PlayCard(Card.parse("Ts")), "10♠"),
        ("Qd", PlayCard(Card.parse("Q♦")), "Q♦"),
        ("claim 3-0-0", Claim((3, 0, 0)), "claim 3-0-0"),
        ("claim 2,1,0", Claim((2, 1, 0)), "claim 2-1-0"),
        ("accept", ACCEPT, "accept"),
        ("reject", REJECT, "reject"),
    ],
)
def test_parse_action_and_print(text: str, action: Action, printed: str) -> None:
    parsed = parse_action(text)
    assert parsed == action
    assert str(parsed) == printed


def test_printed_actions_parse_back() -> None:
    """Every printed action reads back as itself (cards need "play" where a bid could clash)."""
    samples: list[Action] = [Call(b) for b in LADDER]
    samples += [Declare(b) for b in LADDER]
    samples += [HERE, PASS, TAKE_TALON, WHIST, HALF_WHIST, OPEN, CLOSED, ACCEPT, REJECT]
    samples += [Discard((Card(0), Card(31))), Claim((1, 2, 3))]
    for action in samples:
        assert parse_action(str(action)) == action
    for value in range(32):
        assert parse_action(f"play {Card(value)}") == PlayCard(Card(value))


def test_ten_of_spades_without_play_is_the_bid() -> None:
    """The text "10♠" alone is read as the bid 10♠; the card is written "play 10♠"."""
    assert parse_action("10♠") == Call(Bid.parse("10♠"))
    assert parse_action("play 10♠") == PlayCard(Card.parse("10♠"))


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("hello", "is not an action"),
        ("discard 7c", "exactly two cards"),
        ("discard 7c 8d 9h", "exactly two cards"),
        ("discard 7c 7c", "two different cards"),
        ("claim 3-x-0", "claim 3-0-0"),
        ("claim 3--1-0", "claim 3-0-0"),
        ("declare 11s", "6 to 10 tricks"),
        ("play 1s", "is not a card"),
        ("", "is not an action"),
    ],
)
def test_bad_action_text_is_invalid_action(text: str, hint: str) -> None:
    with pytest.raises(InvalidAction) as info:
        parse_action(text)
    assert hint in info.value.message


def test_action_values_reject_bad_shapes() -> None:
    with pytest.raises(InvalidAction, match="negative"):
        Claim((2, -1, 0))
    with pytest.raises(InvalidAction, match="different"):
        Discard((Card(3), Card(3)))
    assert Discard((Card(9), Card(2))).cards == (Card(2), Card(9))
