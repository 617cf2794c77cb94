"""The statistics a club statistician keeps (issue 16, item 4), on both stores: made and failed
by level and strain, whist success, misère success and defence, raspasy results in pool and
gora, help given and received, open and closed defence, the average settlement, the split of
``whists_earned``, the per-deal table and the results' order and date, checked on a hand-built
league whose every number is worked out below from RULES.md §1.6–§1.11.

The league is ``hand_league`` of tests/integration/test_stats.py (three games, seven deals),
plus a fourth game in a league of its own, ``open``, for an open defence that fails its norm
and a caught misère.
"""

from __future__ import annotations

import re
import sqlite3
import uuid
from datetime import datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from domain.rules.systems import rule_set
from projections import stats_queries as q
from projections.stats import PLAYER_COUNTERS, consolation_shares
from projections.stats_export import TABLES, columns, export_stats
from service.app.application import PreferansApplication
from service.app.simulate import simulate
from service.cli import main as pref
from tests.integration.helpers import dump_tables, store_argument
from tests.integration.test_stats import (
    STATS_TABLES,
    Deal,
    hand_league,
    scripted_game,
    shaped,
    stats_runner,
)


def open_league(app: PreferansApplication) -> None:
    """Game 4 (ann, bob, cid; seat 0 is the first hand of deal 1): ann 6♣ made 9-1-0, bob
    whists alone (cid passes) and defends open; bob misère caught (2 tricks); cid 7♥, both pass
    (passed out), which closes cid's pool and helps bob's closed."""
    scripted_game(
        app,
        ["ann", "bob", "cid"],
        "open",
        [
            Deal(
                (9, 1, 0), bidder=0, contract="6♣", whist={1: ["whist"], 2: ["pass"]},
                defence="open",
            ),
            Deal((4, 2, 4), bidder=1, bid="misère", contract="misère"),
            Deal((0, 0, 0), bidder=2, contract="7♥", whist={0: ["pass"], 1: ["pass"]}),
        ],
    )  # fmt: skip


def club(
    settlement_avg: float,
    made: tuple[dict[str, int], dict[str, int], dict[str, int], dict[str, int], float],
    misere: tuple[float, int, int],
    whist: tuple[int, int, int, int, int],
    defence: tuple[tuple[int, int, int], tuple[int, int, int]],
    help_: tuple[int, int],
    raspasy: tuple[int, int],
) -> dict[str, Any]:
    """The issue-16 keys of a ``player_stats`` answer, zero where the arguments give none."""
    made_level, failed_level, made_strain, failed_strain, made_rate = made
    misere_rate, defended, caught = misere
    tricks, consolation, half, whisted, ok = whist
    levels = [str(level) for level in range(6, 11)]
    strains = ["♠", "♣", "♦", "♥", "NT"]
    return {
        "settlement_avg": settlement_avg,
        "contracts": {
            "made_rate": made_rate,
            "made_by_level": {lv: made_level.get(lv, 0) for lv in levels},
            "failed_by_level": {lv: failed_level.get(lv, 0) for lv in levels},
            "made_by_strain": {s: made_strain.get(s, 0) for s in strains},
            "failed_by_strain": {s: failed_strain.get(s, 0) for s in strains},
        },
        "misere": {
            "made_rate": misere_rate,
            "defended": defended,
            "caught": caught,
            "caught_rate": caught / defended if defended else 0.0,
        },
        "whist": {
            "whists_earned": tricks + consolation + half,
            "whists_tricks": tricks,
            "whists_consolation": consolation,
            "whists_half": half,
            "defended": whisted,
            "defended_ok": ok,
            "success_rate": ok / whisted if whisted else 0.0,
        },
        "defence": {
            mode: dict(zip(("deals", "penalised", "whists"), values, strict=True))
            for mode, values in zip(("open", "closed"), defence, strict=True)
        },
        "help": {"given": help_[0], "received": help_[1]},
        "raspasy": {"pool": raspasy[0], "gora": raspasy[1]},
    }


NONE = ((0, 0, 0), (0, 0, 0))

# League "hand", deal by deal (V = pool value, 2 on a 6, 4 on a 7, 6 on an 8; pools close at 2):
# g1 d1  ann misère made: 10 points, 2 close her pool, help 2 to bob and 2 to cid (helps
#        ann→bob 2, ann→cid 2); bob and cid defend the misère and do not catch it.
# g2 d1  raspasy 0-4-6 (bob, cid, dan): bob's true zero writes 1 to his pool; cid 4, dan 6 gora.
# g2 d2  cid 6♠ made 8-2-0 against two whisters (dan first, then bob): norm 4, the defence took
#        2; each whister answers for 2 (level 6): bob took 0 → 4 gora (a whist that failed),
#        dan took 2 → none (a whist that held); dan writes 2 × 2 = 4 trick whists. No open or
#        closed choice (two whisters always play closed).
# g2 d3  dan 7♦: bob passes, cid half-whists (4 whists, no play), bob accepts: made (kind
#        half-whist). dan's 4 points: 2 close his pool, 1 helps bob's (dan→bob 1), 1 left.
# g3 d1  cid 6♥ down 3 (3-7-0): dan passes, ann half-whists, dan returns the whist and defends
#        alone, closed. U = 3, consolation 3 × 2 = 6 for each defender; dan writes his 7 tricks
#        (14) and, under A-02, ann's consolation too: 14 + 6 + 6 = 26; ann writes 0. Split: dan
#        14 tricks + 12 consolation. Norm 4 met: a whist that held.
# g3 d2  dan 6♠, both pass: passed out, made (no whister).
# g3 d3  ann 8NT made 8-1-1: cid whists alone (dan passes), closed; the defence took 2 ≥ norm 1:
#        cid writes 2 × 6 = 12, held. ann's 6 points: 2 close her pool, 2 help cid (ann→cid 2).
# Settlement totals (test_stats.py): ann 108 over 2 games, bob -40 over 2, cid -332/3 over 3,
# dan 128/3 over 2.
HAND = {
    "ann": club(
        54.0,
        ({"8": 1}, {}, {"NT": 1}, {}, 1.0),  # 8NT made
        (1.0, 0, 0),  # her misère made; she defended none
        (0, 0, 0, 0, 0),  # her half-whist in g3 d1 was returned: she wrote nothing
        NONE,
        (2 + 2 + 2, 0),  # g1 d1 and g3 d3
        (0, 0),  # no raspasy
    ),
    "bob": club(
        -40 / 2,
        ({}, {}, {}, {}, 0.0),
        (0.0, 1, 0),  # defended ann's misère, not caught
        (0, 0, 0, 1, 0),  # whisted g2 d2 and was penalised
        NONE,
        (0, 2 + 1),  # from ann (g1 d1) and dan (g2 d3)
        (1, 0),  # g2 d1: the true zero's 1 to pool
    ),
    "cid": club(
        float(Fraction(-332, 3) / 3),
        ({"6": 1}, {"6": 1}, {"♠": 1}, {"♥": 1}, 0.5),  # 6♠ made, 6♥ down
        (0.0, 1, 0),
        (12, 0, 4, 1, 1),  # 12 for g3 d3's tricks, 4 for g2 d3's half-whist; g3 d3 held
        ((0, 0, 0), (1, 0, 12)),  # g3 d3 closed
        (0, 2 + 2),  # from ann twice
        (0, 4),  # g2 d1
    ),
    "dan": club(
        float(Fraction(128, 3) / 2),
        ({"6": 1, "7": 1}, {}, {"♠": 1, "♦": 1}, {}, 1.0),  # 7♦ half-whist, 6♠ passed out
        (0.0, 0, 0),
        (4 + 14, 12, 0, 2, 2),  # g2 d2 and g3 d1 both held
        ((0, 0, 0), (1, 0, 26)),  # g3 d1 closed
        (1, 0),  # to bob in g2 d3
        (0, 6),  # g2 d1
    ),
}

# League "open", game 4 (ann, bob, cid):
# d1  ann 6♣ made 9-1-0: bob whists, cid passes, bob chooses open defence; the defence took 1 of
#     its norm of 4: bob 3 × 2 = 6 gora, and (failing_whister_writes_whists) 1 × 2 = 2 whists.
#     ann's 2 points close her pool.
# d2  bob misère, 2 tricks: failed (20 gora); ann and cid caught it.
# d3  cid 7♥ passed out: 4 points, 2 close cid's pool, 2 help bob's closed (cid→bob 2).
# Settlement: goras 0, 26, 0, average 26/3; shares 260/3, -520/3, 260/3; whists: bob 2 on ann,
# cid 20 on bob: ann 260/3 - 2 = 254/3, bob -520/3 + 2 - 20 = -574/3, cid 260/3 + 20 = 320/3.
OPEN = {
    "ann": club(
        254 / 3,
        ({"6": 1}, {}, {"♣": 1}, {}, 1.0),
        (0.0, 1, 1),
        (0, 0, 0, 0, 0),
        NONE,
        (0, 0),
        (0, 0),
    ),
    "bob": club(
        -574 / 3,
        ({}, {}, {}, {}, 0.0),
        (0.0, 0, 0),  # his misère failed
        (2, 0, 0, 1, 0),
        ((1, 1, 2), (0, 0, 0)),  # d1 open and penalised
        (0, 2),
        (0, 0),
    ),
    "cid": club(
        320 / 3,
        ({"7": 1}, {}, {"♥": 1}, {}, 1.0),
        (0.0, 1, 1),
        (0, 0, 0, 0, 0),  # the passer writes nothing on a made game
        NONE,
        (2, 0),
        (0, 0),
    ),
}

# The per-deal table, some rows by hand: (game, deal, seat) → values.
DEAL_ROWS = {
    # g2 d3: dan (seat 2) 7♦ given by a half-whist; dan's entry: 2 to pool, his 1 point left
    # after helping bob takes 1 off his gora (-1); 10 whists on bob for the help point; cid
    # writes the half-whist's 4 on dan.
    (1, 3, 2): {
        "kind": "half-whist", "declarer_seat": 2, "declarer": "dan", "contract": "7♦",
        "level": 7, "strain": "d", "player_id": "dan", "holds_hand": 1, "whisted": 0,
        "tricks": 0, "pool": 2, "gora": -1, "whists_written": 10, "whists_received": 4,
        "help_given": 1, "help_received": 0, "system": "default", "seats": 3, "dealer": 1,
    },
    (1, 3, 0): {
        "player_id": "bob", "pool": 1, "gora": 0, "whists_written": 0, "whists_received": 10,
        "help_given": 0, "help_received": 1, "whisted": 0,
    },
    # g2 d1: raspasy, no declarer; cid took 4 tricks, 4 gora.
    (1, 1, 1): {
        "kind": "raspasy", "declarer_seat": -1, "declarer": "", "contract": "", "level": 0,
        "strain": "", "player_id": "cid", "tricks": 4, "pool": 0, "gora": 4, "dealer": 2,
    },
    # g3 d1: dan (seat 1) the returning whister of cid's 6♥ down 3.
    (2, 1, 1): {
        "kind": "game", "declarer": "cid", "contract": "6♥", "level": 6, "strain": "h",
        "player_id": "dan", "whisted": 1, "tricks": 7, "whists_written": 26,
    },
}  # fmt: skip


def test_club_statistics_of_a_hand_built_league(
    app: PreferansApplication,
    store_env: dict[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runner = stats_runner(app, batch=5)  # batches end mid-deal and mid-game
    ids = hand_league(app)
    open_league(app)
    runner.catch_up()
    for league, expected in (("hand", HAND), ("open", OPEN)):
        for player, wanted in expected.items():
            got = q.player_stats(app.db, league, player)
            assert got is not None
            flat = q.flatten(shaped(got, wanted))
            assert flat == pytest.approx(q.flatten(wanted)), (league, player)
            # made + failed = declared, by level and by strain
            contracts = got["contracts"]
            for by in ("level", "strain"):
                assert sum(contracts[f"made_by_{by}"].values()) == contracts["made"]
                assert sum(contracts[f"failed_by_{by}"].values()) == contracts["failed"]

    # The per-deal table: 7 deals × 3 seats in "hand", in the log's order.
    table = q.deals(app.db, "hand")
    assert len(table) == 21
    keys = [(ids.index(uuid.UUID(r["game_id"])), r["deal"], r["seat"]) for r in table]
    assert keys == sorted(keys)
    by_key = dict(zip(keys, table, strict=True))
    for key, values in DEAL_ROWS.items():
        assert {k: by_key[key][k] for k in values} == values, key
    # Each deal's sheet entries sum to the players' totals (help and leftovers included).
    for player in HAND:
        stats = q.player_stats(app.db, "hand", player)
        assert stats is not None
        mine = [r for r in table if r["player_id"] == player]
        assert sum(r["pool"] for r in mine) == stats["pool"]
        assert sum(r["gora"] for r in mine) == stats["gora"]
        assert sum(r["whists_written"] for r in mine) == stats["whists_written"]
        assert sum(r["help_given"] for r in mine) == stats["help"]["given"]

    # Results: the games' order in the league and when each finished.
    results = q.game_results(app.db, "hand")
    assert [r["game_order"] for r in results] == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    stamps = [datetime.fromisoformat(r["finished_at"]) for r in results[::3]]
    assert stamps == sorted(stamps) and all(s.utcoffset() is not None for s in stamps)

    # The export: every column name snake_case ASCII (no quoting in SQL), numbers as numbers.
    export_stats(app.db, tmp_path, ["hand", "open"])
    sql = sqlite3.connect(":memory:")
    for name in TABLES:
        for column in columns(name):
            assert re.fullmatch(r"[a-z][a-z0-9_]*", column), column
        names = ", ".join(columns(name))  # unquoted, as an analyst writes them
        sql.execute(f"CREATE TABLE {name} ({names})")
        sql.execute(f"SELECT {names} FROM {name}")
        assert pq.read_table(tmp_path / f"{name}.parquet").column_names == list(columns(name))
    players = {
        (r["league"], r["player_id"]): r
        for r in pq.read_table(tmp_path / "players.parquet").to_pylist()
    }
    bob = players[("open", "bob")]
    assert bob["defence_open_penalised"] == 1 and bob["whist_success_rate"] == 0.0
    assert players[("hand", "dan")]["whist_whists_consolation"] == 12
    assert players[("hand", "cid")]["contracts_failed_by_strain_hearts"] == 1
    assert players[("hand", "ann")]["settlement_avg"] == 54.0
    schema = pq.read_schema(tmp_path / "results.parquet")
    assert [str(schema.field(c).type) for c in ("game_order", "settlement", "finished_at")] == [
        "int64",
        "double",
        "string",
    ]
    deals_file = pq.read_table(tmp_path / "deals.parquet").to_pylist()
    assert len(deals_file) == 21 + 9
    assert {r["league"] for r in deals_file} == {"hand", "open"}

    # `pref stats`: one player's numbers (rates as percentages), and the per-deal table.
    monkeypatch.setenv("COLUMNS", "250")
    store = store_argument(store_env)
    capsys.readouterr()
    assert pref(["stats", "--store", store, "--league", "open", "--player", "bob"]) == 0
    shown = capsys.readouterr().out
    assert re.search(r"defence_open_penalised\s*│\s*1\s", shown)
    assert re.search(r"whist_success_rate\s*│\s*0\.0%", shown)
    assert re.search(r"help_received\s*│\s*2\s", shown)
    assert re.search(r"settlement_avg\s*│\s*-191\.3\s", shown)  # -574/3
    assert pref(["stats", "--store", store, "--league", "hand", "--deals", "--player", "dan"]) == 0
    lines = capsys.readouterr().out.splitlines()
    half = [line for line in lines if "half-whist" in line]
    assert len(half) == 1  # g2 d3, dan's line: 0 tricks, pool 2, gora -1, 10 and 4 whists
    assert " ".join(half[0].split()) == "3 half-whist dan 7♦ dan 0 2 -1 10 4 1 0"
    kinds = ("game", "raspasy", "half-whist", "passed-out", "misere")
    dans = [line.split() for line in lines if len(line.split()) > 2 and line.split()[1] in kinds]
    assert len(dans) == 6 and {line[-8] for line in dans} == {"dan"}  # his six deals


def test_consolation_shares_follow_who_wrote_it() -> None:
    # Each defender writes his own: 3 undertricks at 2 = 6 each (RULES.md §1.7).
    assert consolation_shares({1: 20, 2: 6}, 6) == {1: 6, 2: 6}
    # A return whist: the returner wrote the half-whister's consolation too.
    assert consolation_shares({1: 26, 2: 0}, 6) == {1: 12, 2: 0}
    # Gentleman sharing (C-3): (14 + 6 + 6) / 2 = 13 each, of which 6 consolation.
    assert consolation_shares({1: 13, 2: 13}, 6) == {1: 6, 2: 6}
    # No consolation (a made contract, or rules without it).
    assert consolation_shares({1: 8, 2: 0}, 0) == {1: 0, 2: 0}


def test_a_store_of_the_version_before_gains_the_club_statistics_by_a_rebuild(
    app: PreferansApplication,
) -> None:
    """Stats tables made before issue 16 (no club columns, no ``stats_deals``, no
    ``finished_at``): a runner of this version adds them and goes on; the new counters start
    at zero for the games already projected (docs/STATS.md "Upgrading a store"), and
    ``pref projections rebuild stats`` gives every number."""
    live = stats_runner(app)
    hand_league(app)
    live.catch_up()
    rebuilt = dump_tables(app.db, STATS_TABLES)
    added = PLAYER_COUNTERS[PLAYER_COUNTERS.index("made_level_6") :]
    with app.db.transaction() as c:
        for column in added:
            c.execute(f"ALTER TABLE stats_players DROP COLUMN {column}")
        c.execute("ALTER TABLE stats_games DROP COLUMN club")
        c.execute("ALTER TABLE stats_results DROP COLUMN finished_at")
        c.execute("DROP TABLE stats_deals")
    open_league(app)
    stats_runner(app).catch_up()  # a runner of this version starts on the old tables
    hand = q.player_stats(app.db, "hand", "dan")
    assert hand is not None and hand["whist"]["defended"] == 0  # not counted before
    assert q.game_results(app.db, "hand")[0]["finished_at"] == ""
    assert q.deals(app.db, "hand") == []
    opened = q.player_stats(app.db, "open", "bob")
    assert opened is not None and opened["defence"]["open"]["deals"] == 1  # new games count
    stats_runner(app, batch=500).rebuild()
    again = dump_tables(app.db, STATS_TABLES)
    assert {t: [r for r in rows if "open" not in r] for t, rows in again.items()} == rebuilt


SYSTEMS = [
    ("default", 3),
    ("sochi", 3),
    ("leningrad", 3),
    ("rostov", 3),
    ("default", 4),
    ("default", 2),
]


@pytest.mark.parametrize(("system", "seats"), SYSTEMS)
def test_club_statistics_agree_with_the_deal_table_under_every_system(
    app: PreferansApplication, system: str, seats: int
) -> None:
    """Bots play whole games (consolation prices, gentleman sharing, a seat sitting out, the
    two-player dummy): the player statistics and the per-deal table agree with each other and
    with the sheet, whatever the system."""
    rules = rule_set(system).with_options(players=seats, pool_target=4)
    players = ["ann", "bob", "cid", "dan", "eve"][: max(seats, 3)]
    simulate(app, 2, "sim", players, rules, seed=f"club-{system}-{seats}")
    stats_runner(app, batch=41).catch_up()
    table = q.deals(app.db, "sim")
    assert table and {r["system"] for r in table} == {system}
    assert {r["seats"] for r in table} == {seats}
    for player in players:
        stats = q.player_stats(app.db, "sim", player)
        if stats is None:
            continue
        mine = [r for r in table if r["player_id"] == player]
        assert len(mine) == stats["deals"]
        for key in ("pool", "gora", "whists_written", "whists_received"):
            assert sum(r[key] for r in mine) == stats[key], (player, key)
        assert sum(r["help_given"] for r in mine) == stats["help"]["given"]
        assert sum(r["help_received"] for r in mine) == stats["help"]["received"]
        contracts, whist = stats["contracts"], stats["whist"]
        for by in ("level", "strain"):
            assert sum(contracts[f"made_by_{by}"].values()) == contracts["made"]
            assert min(contracts[f"failed_by_{by}"].values()) >= 0
        assert whist["whists_tricks"] >= 0 and whist["whists_consolation"] >= 0
        assert 0 <= whist["defended_ok"] <= whist["defended"]
        whisted = [r for r in mine if r["whisted"] and r["kind"] == "game"]
        assert len(whisted) == whist["defended"]
        assert sum(r["holds_hand"] for r in mine) <= stats["deals"]
        assert stats["misere"]["caught"] <= stats["misere"]["defended"]
        assert stats["raspasy"]["pool"] <= stats["raspasy"]["true_zeros"] * 10
    given = sum(r["help_given"] for r in table)
    assert given == sum(r["help_received"] for r in table)
