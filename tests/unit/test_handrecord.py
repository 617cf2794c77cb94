"""Hand records (docs/HANDRECORD.md): golden text and JSON of a known deal, round trips of whole
games through JSON, tampered records and unreadable files, and the referee's replay frames."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from domain.bots import make_bot
from domain.handrecord import (
    FORMAT,
    VERSION,
    HandRecordError,
    parse_record,
    record_from_deal,
    record_from_game,
    render_text,
    schema,
    to_json,
    validate,
    verify_record,
)
from domain.rules import (
    DEFAULT,
    Action,
    DealtCards,
    RuleSet,
    SeatView,
    mask_of,
    new_deal,
    parse_action,
    parse_cards,
    play_game,
)
from service.cli import main
from service.cli.replay import frames, run_replay

GOLDEN = Path(__file__).resolve().parent.parent / "golden"

# A 6♠ by B (dealer B, so C is the first hand), A whists alone after C passed and plays open,
# deciding for C's cards too. Fixed cards, fixed decisions: the rules core does the rest.
HANDS = (
    "10♠ K♠ 7♣ 8♣ A♣ 7♦ 10♦ K♦ J♥ K♥",
    "7♠ 8♠ 9♠ J♠ Q♠ J♣ Q♣ 9♦ A♦ A♥",
    "A♠ 9♣ 10♣ K♣ J♦ Q♦ 7♥ 8♥ 9♥ 10♥",
)
TALON = "Q♥ 8♦"
DEALER = 1
DECISIONS = (
    "C pass, A pass, B 6♠, B take talon, B discard J♣ Q♣, B declare 6♠, C pass, A whist, "
    "A open, A K♣, A 7♣, B 7♠, B Q♠, A A♠, A 10♠, A 10♥, A J♥, B Q♥, B J♠, A 7♥, A K♠, A K♦, "
    "B A♦, A J♦, B A♥, A 8♥, A K♥, B 9♦, A Q♦, A 7♦, A 9♥, A 10♦, B 8♠, B 8♦, A 9♣, A 8♣, "
    "B 9♠, A 10♣, A A♣"
)
SEATS = {"A": 0, "B": 1, "C": 2}


def golden_actions() -> list[tuple[int, Action]]:
    out: list[tuple[int, Action]] = []
    for i, step in enumerate(DECISIONS.split(", ")):
        who, text = step.split(" ", 1)
        out.append((SEATS[who], parse_action(text, cards_first=i >= 9)))
    return out


def golden_record() -> dict[str, Any]:
    hands = tuple(mask_of(parse_cards(h)) for h in HANDS)
    a, b = parse_cards(TALON)
    start = new_deal(DealtCards(hands, (a, b)), DEALER, DEFAULT)
    return record_from_deal(start, golden_actions(), players=("ann", "bob", "cid"), game_id="g")


def test_text_form_of_a_known_deal_matches_the_golden_file() -> None:
    expected = (GOLDEN / "handrecord_deal.txt").read_text(encoding="utf-8")
    assert render_text(golden_record()) == expected


def test_json_form_of_a_known_deal_matches_the_golden_file() -> None:
    expected = (GOLDEN / "handrecord_deal_v3.json").read_text(encoding="utf-8")
    assert to_json(golden_record()) == expected


def test_the_version_2_golden_file_reads_as_the_same_record() -> None:
    """A file written by version 2 (no flags, rulings, tags, system, options, settlement at
    the end, nor the hand a decision was for) is upcast on reading: the same record as today's
    export, the cards A played from C's open hand named C's (RULES.md §1.6 outcome 2)."""
    old = (GOLDEN / "handrecord_deal_v2.json").read_text(encoding="utf-8")
    assert json.loads(old)["version"] == 2
    assert all("hand" not in step for step in json.loads(old)["deals"][0]["actions"])
    rec = parse_record(old)
    assert rec == golden_record()
    played_for_c = [s["action"] for s in rec["deals"][0]["actions"] if s.get("hand") == 2]
    assert played_for_c[:2] == ["K♣", "A♠"]  # C's cards of tricks 1 and 2; A's own 7♣, 10♠:
    assert [s.get("hand") for s in rec["deals"][0]["actions"][9:11]] == [2, None]
    assert all(s["seat"] == 0 for s in rec["deals"][0]["actions"] if s.get("hand") == 2)
    assert verify_record(rec).consistent


def test_the_version_1_golden_file_reads_as_the_same_record() -> None:
    """A file written by version 1 (three seats, no ``hand_seats``/``sitters``) is upcast on
    reading: the same record as today's export, and consistent (RULES.md §3.6: H3 deals)."""
    old = (GOLDEN / "handrecord_deal.json").read_text(encoding="utf-8")
    assert json.loads(old)["version"] == 1
    assert "hand_seats" not in json.loads(old)["deals"][0]
    rec = parse_record(old)
    assert rec == golden_record()
    assert rec["deals"][0]["hand_seats"] == [2, 0, 1]  # C H1, A H2, B (the dealer) H3
    assert rec["deals"][0]["sitters"] == []
    assert verify_record(rec).consistent


def test_the_golden_record_is_consistent() -> None:
    verdict = verify_record(parse_record(to_json(golden_record())))
    assert verdict.consistent, verdict.message
    assert (verdict.deals, verdict.actions) == (1, 39)


def _random_policy(rng: random.Random) -> Any:
    bot = make_bot()

    def policy(view: SeatView) -> Action:
        if rng.random() < 0.5:
            return bot(view)
        return rng.choice(list(view.legal))

    return policy


@pytest.mark.parametrize("seed", [b"hand-record-1", b"hand-record-2", b"hand-record-3"])
def test_whole_games_round_trip_through_json(seed: bytes) -> None:
    rng = random.Random(seed)
    policy = _random_policy(rng) if seed.endswith(b"3") else make_bot()
    game = play_game(seed * 2, [policy] * 3, RuleSet(pool_target=10), first_dealer=2)
    assert game.finished
    rec = record_from_game(game, ("ann", "bob", "cid"), "g")
    back = parse_record(to_json(rec))
    assert back == rec
    verdict = verify_record(back)
    assert verdict.consistent, verdict.message
    assert verdict.deals == len(game.deals)
    assert rec["complete"] and rec["seed"] == (seed * 2).hex()
    for deal in game.deals:
        one = record_from_game(game, deal_number=deal.number)
        assert verify_record(parse_record(to_json(one))).consistent


def _tamper(path: list[Any], value: Any, record: dict[str, Any] | None = None) -> str:
    """Change one field of a record (the golden one by default); it must not verify."""
    rec = copy.deepcopy(golden_record() if record is None else record)
    target: Any = rec
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    verdict = verify_record(parse_record(to_json(rec)))
    assert not verdict.consistent
    return verdict.message


def test_an_illegal_card_is_reported() -> None:
    # Decision 11: A (holding 7♣ 8♣ A♣) must follow C's K♣; 10♠ is a revoke.
    message = _tamper(["deals", 0, "actions", 10], {"seat": 0, "action": "10♠"})
    assert message.startswith("deal 1, decision 11 (A: 10♠) is not legal:")
    assert "♣" in message


def test_a_card_not_held_is_reported() -> None:
    message = _tamper(["deals", 0, "actions", 11], {"seat": 1, "action": "A♣"})
    assert message.startswith("deal 1, decision 12 (B: A♣) is not legal")


def test_a_decision_out_of_turn_is_reported() -> None:
    message = _tamper(["deals", 0, "actions", 0], {"seat": 0, "action": "pass"})
    assert message.startswith("deal 1, decision 1 (A: pass) is not legal")
    assert "turn" in message


def test_a_wrong_score_is_reported() -> None:
    message = _tamper(["deals", 0, "score", "pool"], [0, 4, 0])
    assert message == (
        "deal 1: the recorded score is wrong: pool is [0, 4, 0] in the record, "
        "but the rules give [0, 2, 0]"
    )


def test_a_wrong_sheet_entry_is_reported() -> None:
    message = _tamper(["deals", 0, "entry", "gora"], [0, 0, 0])
    assert message.startswith("deal 1: the recorded sheet entry is wrong: gora is [0, 0, 0]")


def test_a_trick_that_differs_from_the_decisions_is_reported() -> None:
    rec = golden_record()
    trick = copy.deepcopy(rec["deals"][0]["tricks"][3])
    trick["winner"] = 2
    message = _tamper(["deals", 0, "tricks", 3], trick)
    assert message.startswith("deal 1, trick 4: the record says")
    assert "won by C; the actions give" in message


def test_a_wrong_result_and_truncated_play_are_reported() -> None:
    result = dict(golden_record()["deals"][0]["result"], tricks=[2, 6, 2])
    assert "the result" in _tamper(["deals", 0, "result"], result)
    actions = golden_record()["deals"][0]["actions"][:-1]
    assert "stop before the deal is over" in _tamper(["deals", 0, "actions"], actions)


def test_a_wrong_settlement_and_seed_are_reported() -> None:
    game = play_game(b"s" * 32, [make_bot()] * 3, RuleSet(pool_target=10))
    rec = record_from_game(game)
    bad = copy.deepcopy(rec)
    bad["settlement"] = ["1", "-1", "0"]
    assert "the recorded settlement" in verify_record(bad).message
    bad = copy.deepcopy(rec)
    bad["seed"] = (b"t" * 32).hex()
    assert verify_record(bad).message == "the revealed seed does not match the seed commitment"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not valid JSON: Expecting property name enclosed in double quotes at line 1"),
        ("[]", "a hand record is a JSON object"),
        ('{"format": "pbn"}', "not a hand record: format is 'pbn'"),
        (
            json.dumps({"format": FORMAT, "version": 4}),
            "unsupported hand-record version 4: this reader knows versions 1 to 3",
        ),
        (
            json.dumps({"format": FORMAT, "version": True}),
            "unsupported hand-record version True: this reader knows versions 1 to 3",
        ),
    ],
)
def test_unreadable_files_give_clear_messages(text: str, message: str) -> None:
    with pytest.raises(HandRecordError) as info:
        parse_record(text)
    assert str(info.value).startswith(message)


def test_shape_errors_name_the_field() -> None:
    rec = golden_record()
    del rec["deals"][0]["tricks"]
    with pytest.raises(HandRecordError, match=r"^deals\[0\]\.tricks: missing$"):
        parse_record(json.dumps(rec))
    rec = golden_record()
    rec["deals"][0]["tricks"][2]["cards"][1]["card"] = 12
    with pytest.raises(
        HandRecordError, match=r"^deals\[0\]\.tricks\[2\]\.cards\[1\]\.card: expected a string"
    ):
        parse_record(json.dumps(rec))
    rec = golden_record()
    rec["complete"] = "yes"
    with pytest.raises(HandRecordError, match=r"^complete: expected true or false"):
        parse_record(json.dumps(rec))
    assert VERSION == 3


def _screen(rec: dict[str, Any], index: int) -> str:
    console = Console(record=True, width=110, color_system=None)
    console.print(list(frames(rec))[index])
    return console.export_text()


def test_replay_frames_show_every_hand_and_each_trick() -> None:
    rec = golden_record()
    all_frames = list(frames(rec))
    assert len(all_frames) == 1 + 39 + 1  # dealt, each decision, the score written
    dealt = _screen(rec, 0)
    assert "Deal 1 dealt by B" in dealt
    assert "♠ K 10  ♣ A 8 7  ♦ K 10 7  ♥ K J" in dealt  # A's hand
    assert "♠ Q J 9 8 7  ♣ Q J  ♦ A 9  ♥ A" in dealt  # B's hand
    assert "♠ A  ♣ K 10 9  ♦ Q J  ♥ 10 9 8 7" in dealt  # C's hand
    after_trick_1 = _screen(rec, 12)
    assert "Deal 1 · 12. B: 7♠" in after_trick_1
    assert "Trick  1  C K♣  A 7♣  B 7♠  won by B" in after_trick_1
    assert "Discard   ♣ Q J" in after_trick_1
    assert "Whist     C pass, A whist" in after_trick_1
    last = _screen(rec, -2)
    assert "Trick 10  B 9♠  C 10♣  A A♣  won by B" in last
    scored = _screen(rec, -1)
    assert "Result: game, B 6♠, tricks 1-7-2" in scored


def test_run_replay_steps_and_quits() -> None:
    console = Console(record=True, width=110, color_system=None)
    answers = iter(["", "q"])
    assert run_replay(golden_record(), console, step=True, read=lambda _: next(answers)) == 0
    assert console.export_text().count("Deal 1") == 2


def test_pref_import_reports_consistent_and_discrepancies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.json"
    good.write_text(to_json(golden_record()), encoding="utf-8")
    assert main(["import", str(good)]) == 0
    assert "consistent: 1 deals, 39 decisions replayed" in capsys.readouterr().out
    rec = golden_record()
    rec["deals"][0]["score"]["gora"] = [0, 0, 0]
    bad = tmp_path / "bad.json"
    bad.write_text(to_json(rec), encoding="utf-8")
    assert main(["import", str(bad)]) == 1
    assert "the recorded score is wrong: gora" in capsys.readouterr().out
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    assert main(["import", str(broken)]) == 2
    assert "not valid JSON" in capsys.readouterr().out


def test_the_schema_the_reader_checks_is_the_documented_one_and_fits_every_export() -> None:
    docs = GOLDEN.parent.parent / "docs" / "handrecord.schema.json"
    documented = json.loads(docs.read_text(encoding="utf-8"))
    assert documented == schema()
    deal = documented["$defs"]["deal"]
    rec = golden_record()
    # issue 12: only in a game ordered (S000 Classic); issue 14: only with a stake
    envelope_optional = {"order", "stakes"}
    assert set(rec) | envelope_optional == set(documented["properties"])
    assert set(rec) == set(documented["required"])
    optional = {"dealer_run"}  # added by issue 11 (RULES.md §3.3); older records lack it
    classic = {"bomb_signs", "classic", "robber_owed"}  # issue 12: Classic deals only
    assert set(rec["deals"][0]) | classic == set(deal["properties"])
    assert set(deal["properties"]) == set(deal["required"]) | optional | classic
    assert documented["properties"]["format"]["const"] == FORMAT
    assert documented["properties"]["version"]["const"] == VERSION
    assert validate(rec) is rec


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (["deals", 0, "dealer"], 0.0, "deals[0].dealer: expected an integer, got 0.0"),
        (["deals", 0, "dealer"], True, "deals[0].dealer: expected an integer, got true"),
        (["deals", 0, "dealer"], 3, "deals[0].dealer: 3 is above 2"),
        (["players"], ["a"], "players: expected at least 2 items"),
        (["players"], list("abcdef"), "players: expected at most 5 items"),
        (["deals", 0, "hands"], [""] * 6, "deals[0].hands: expected at most 5 items"),
        (["deals", 0, "hands"], ["", ""], "deals[0].hands: expected at least 3 items"),
        (["seed_commitment"], "xyz", 'seed_commitment: "xyz" is not in the expected form'),
        # Version 2 (issue 13): the schema allows up to five seats; the table's own size
        # (rules.players) bounds every seat and every per-seat list.
        (
            ["deals", 0, "score", "pool"],
            [0, 2, 0, 0],
            "deals[0].score.pool: expected at most 3 items",
        ),
        (
            ["deals", 0, "entry", "whists", 1],
            [0, 0],
            "deals[0].entry.whists[1]: expected at least 3 items",
        ),
        (
            ["deals", 0, "tricks", 0, "cards", 0, "seat"],
            3,
            "deals[0].tricks[0].cards[0].seat: 3 is above 2",
        ),
        (["deals", 0, "hand_seats"], [2, 0], "deals[0].hand_seats: expected at least 3 items"),
        (["deals", 0, "sitters"], [5], "deals[0].sitters[0]: 5 is above 4"),
        (["rules", "players"], 4, "players: expected at least 4 items"),
    ],
)
def test_the_schema_refuses_what_the_rules_could_not_read(
    path: list[Any], value: Any, message: str
) -> None:
    """A seat that is not a small int (1.0, true, 3), or one hand too many, is refused while
    reading, with the field named, instead of failing inside the replay."""
    rec = golden_record()
    target: Any = rec
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(HandRecordError) as info:
        parse_record(json.dumps(rec))
    assert str(info.value) == message


def test_hands_seated_otherwise_than_the_rules_seat_them_are_reported() -> None:
    """RULES.md §3.6: with three players the hands are H1, H2 and the dealer as H3, and nobody
    sits out; a record that seats them otherwise, or deals a card to a sitter, is refused."""
    message = _tamper(["deals", 0, "hand_seats"], [0, 2, 1])
    assert message == (
        "deal 1: the record gives the hands H1, H2, H3 as A, C, B; with 3 players and B "
        "dealing they are C, A, B"
    )
    message = _tamper(["deals", 0, "sitters"], [1])
    assert message == (
        "deal 1: the record gives the seats without a hand as B; with 3 players and B "
        "dealing they are none"
    )


def test_a_field_the_format_does_not_have_is_named() -> None:
    rec = golden_record()
    rec["deals"][0]["comment"] = "nice"
    with pytest.raises(HandRecordError, match=r"^deals\[0\]\.comment: not a field"):
        parse_record(json.dumps(rec))


# --- two players ("гусарик", RULES.md §3.6) -----------------------------------------------

DUO_OPTIONS: list[dict[str, Any]] = [
    {},
    {"duo_all_pass": "varenik", "duo_retract_pass": True},
    {"duo_whist_own_cards": True, "duo_dummy_hand": 2, "duo_all_pass": "redeal"},
]


@pytest.mark.parametrize("options", DUO_OPTIONS, ids=["plain", "varenik", "dummy-h2"])
def test_rules_3_6_two_player_games_round_trip_validate_and_verify(options: dict[str, Any]) -> None:
    """A two-player record has two players and three hands a deal (position 2: the dummy, as
    dealt at its agreed hand); it validates, verifies against the revealed seed, reads back
    equal, and its text names the dummy at its hand."""
    rules = RuleSet.from_dict({"players": 2, "pool_target": 6, **options})
    seed = f"two-player-record/{sorted(options.items())}".encode()
    game = play_game(seed, [_random_policy(random.Random(seed))] * 2, rules, first_dealer=1)
    assert game.finished
    rec = record_from_game(game, ("ann", "bob"), "g")
    validate(rec)
    back = parse_record(to_json(rec))
    assert back == rec and back["players"] == ["ann", "bob"]
    verdict = verify_record(back)
    assert verdict.consistent, verdict.message
    assert verdict.deals == len(game.deals)
    dummy_hand = rules.duo_dummy_hand
    text = render_text(rec)
    for deal in rec["deals"]:
        assert len(deal["hands"]) == 3 and all(len(h.split()) == 10 for h in deal["hands"])
    assert f"Hand Dummy H{dummy_hand}:" in text and "Hand C" not in text
    # The dummy's cards belong to the deal: a record with them changed does not verify.
    tampered = copy.deepcopy(rec)
    first = tampered["deals"][0]["hands"]
    first[0], first[2] = first[2], first[0]
    assert not verify_record(tampered).consistent
