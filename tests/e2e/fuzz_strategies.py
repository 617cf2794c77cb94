"""Hypothesis strategies for the fuzz suite, built generically from the proto descriptors.

``request_strategy(descriptor, world)`` draws a request message of any type: every field gets
values by its type (strings, integers, enums, booleans, nested and repeated messages, oneofs),
mixing valid-ish values (the games, seat tokens, players, leagues and page tokens the ``World``
knows) with hostile ones (huge strings, NUL, control and bidi characters, any non-surrogate
Unicode, boundary and negative integers, unknown enum values, random JSON and random bytes in
page tokens). The world grows while the fuzz runs (games it creates, tokens servers issue), so
pools are read when a value is drawn, not when the strategy is built.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from hypothesis import strategies as st

SUITS = "♠♣♦♥"
RANKS = ("7", "8", "9", "10", "J", "Q", "K", "A")
CARDS = [rank + suit for suit in SUITS for rank in RANKS]
BIDS = [f"{level}{strain}" for level in range(6, 11) for strain in [*SUITS, "NT"]]
WORDS = ["pass", "misere", "here", "whist", "half-whist", "open", "closed", "take talon"]
INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)
HUGE_LENGTHS = (257, 1_025, 70_000, 1_300_000)
"""Lengths of the huge strings: just over a short limit, over 1 KiB and 64 KiB, and the 1.3 MB
player ids of issue 9."""
NASTY = [
    "\x00",
    "a\x00b",
    "\x00" * 8,
    "\x07\x08\x1b[31m",
    "\r\n",
    "line\nbreak",
    "\t",
    "\u202e",  # right-to-left override
    "abc\u202edef",
    "\u2066\u2069",  # isolates
    "\u200b",  # zero width space
    "\ufeff",
    "\u0085",
    "e\u0301",  # not NFC
    "\u00e9",
    "\U0001f0a1",
    "\uffff",
    "\U0010ffff",
    " ",
    "   ",
    "../../etc/passwd",
    "/abs/path",
    "a/b",
    "%s%n%x",
    "' OR 1=1 --",
    '"; DROP TABLE events; --',
    "{{7*7}}",
    "${jndi:ldap://x}",
    "games/",
    "games/..",
    "null",
    "NaN",
    "default",
]


@dataclass
class Game:
    """A game the fuzz knows: its resource name and its three seat tokens."""

    name: str
    tokens: list[str]


@dataclass
class World:
    """What exists on the server under test: valid-ish values to mix into requests."""

    games: list[Game] = field(default_factory=list)
    players: list[str] = field(default_factory=lambda: ["ann", "bob", "cid"])
    leagues: list[str] = field(default_factory=lambda: ["", "fuzz"])
    page_tokens: list[str] = field(default_factory=list)
    request_ids: list[str] = field(default_factory=lambda: ["r-1", "r-2", "game-42"])
    auditor_token: str = ""
    created: list[str] = field(default_factory=list)
    """Names of the games created by fuzzed calls (the read models must show them)."""
    _issued: int = 0

    def fresh_id(self) -> str:
        """A request id never used before (Hypothesis' own draws repeat small values)."""
        self._issued += 1
        return f"fuzz-{self._issued}"

    def game(self, name: str) -> Game | None:
        for game in self.games:
            if game.name == name:
                return game
        return None

    def remember_token(self, token: str) -> None:
        if token and token not in self.page_tokens:
            self.page_tokens.append(token)
            del self.page_tokens[:-50]


def fresh_ids(world: World) -> st.SearchStrategy[str]:
    """Request ids never used before, drawn as a token so that draws replay."""
    return st.just(None).map(lambda _: world.fresh_id())


def pick(pool: Callable[[], list[Any]]) -> st.SearchStrategy[Any]:
    """One element of a list read at draw time (empty list: nothing to pick, so ``None``)."""

    def choose(index: int) -> Any:
        items = pool()
        return items[index % len(items)] if items else None

    return st.integers(0, 10_000).map(choose)


# -- hostile values ----------------------------------------------------------------------


def huge_text() -> st.SearchStrategy[str]:
    return st.tuples(st.sampled_from(HUGE_LENGTHS), st.sampled_from(["x", "é", "\x00", "♠"])).map(
        lambda pair: pair[1] * pair[0]
    )


def hostile_text() -> st.SearchStrategy[str]:
    """Strings no validator should let reach the store unexamined."""
    control = st.characters(categories=["Cc", "Cf", "Zl", "Zp", "Co"])
    return st.one_of(
        st.sampled_from(NASTY),
        st.text(max_size=40),
        st.text(alphabet=control, min_size=1, max_size=10),
        st.tuples(st.text(max_size=8), st.sampled_from(NASTY), st.text(max_size=8)).map("".join),
        huge_text(),
    )


def with_hostile(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly valid-ish values, sometimes hostile ones, sometimes a valid value spoiled."""
    spoiled = st.tuples(valid, st.sampled_from(["\x00", "\u202e", "\n", " "])).map(
        lambda pair: f"{pair[0]}{pair[1]}" if isinstance(pair[0], str) else pair[1]
    )
    return st.one_of(valid, valid, hostile_text(), spoiled)


def integers(bounds: tuple[int, int]) -> st.SearchStrategy[int]:
    low, high = bounds
    edges = [low, low + 1, -1, 0, 1, high - 1, high, 2**31 - 1, 2**32, -(2**31)]
    return st.one_of(
        st.integers(-2, 12),
        st.sampled_from([e for e in edges if low <= e <= high]),
        st.integers(low, high),
    )


def json_values() -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**40), 10**40),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=10),
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
        ),
        max_leaves=12,
    )


RULE_OPTIONS = [
    "pool_target",
    "misere_value",
    "raspasy_trick_prices",
    "raspasy_exit_levels",
    "raspasy_amnesty",
    "whist_kind",
    "defence_norms",
    "consolation",
    "name",
    "players",
]


def options_json() -> st.SearchStrategy[str]:
    """Rule options: valid ones, wrong types (2.5, true, 40 digits, 1e400, NaN), nesting."""
    known = st.dictionaries(st.sampled_from(RULE_OPTIONS), json_values(), max_size=3)
    literal = st.sampled_from(
        [
            '{"pool_target": 2.5}',
            '{"pool_target": true}',
            '{"pool_target": 1234567890123456789012345678901234567890}',
            '{"pool_target": 1e400}',
            '{"pool_target": NaN}',
            '{"pool_target": -1}',
            '{"pool_target": 1}',
            '{"misere_value": "10"}',
            '{"defence_norms": {"6": 99}}',
            '{"raspasy_trick_prices": []}',
            '{"unknown_option": 1}',
            "[" * 5000 + "]" * 5000,
            '{"a":' * 3000 + "1" + "}" * 3000,
            "{}",
            "null",
            "",
            "{",
        ]
    )
    return st.one_of(
        st.just(""),
        literal,
        literal,
        known.map(lambda d: json.dumps(d, allow_nan=True)),
        json_values().map(lambda v: json.dumps(v, allow_nan=True)),
        hostile_text(),
    )


def page_token(world: World) -> st.SearchStrategy[str]:
    def b64(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).decode()

    crafted = st.sampled_from(
        [
            b64(b"offset:" + b"9" * 60),
            b64(b"offset:-1"),
            b64(b"offset:1e9"),
            b64(b"offset:" + b"9" * 5000),
            b64(b"[" * 5000 + b"]" * 5000),
            b64(b'{"o":' * 2000 + b"1" + b"}" * 2000),
            b64(b'{"o": 99999999999999999999999999, "q": ""}'),
            b64(b'{"o": -5, "q": "x"}'),
            b64(b'{"a": 1}'),
            b64(b"\xff\xfe\x00"),
            "!!!not-base64!!!",
            "====",
        ]
    )
    return st.one_of(
        st.just(""),
        pick(lambda: world.page_tokens).map(lambda t: t or ""),
        crafted,
        st.binary(max_size=64).map(b64),
        json_values().map(lambda v: b64(json.dumps(v).encode())),
        hostile_text(),
    )


# -- valid-ish values by field name --------------------------------------------------------


def game_name(world: World) -> st.SearchStrategy[str]:
    known = pick(lambda: [g.name for g in world.games]).map(lambda n: n or "")
    return st.one_of(
        known,
        known,
        known.map(lambda n: n.removeprefix("games/")),
        st.uuids().map(lambda u: f"games/{u}"),
        st.just(""),
        with_hostile(st.just("games/")),
    )


def string_for(fd: FieldDescriptor, world: World) -> st.SearchStrategy[str]:
    name = fd.name
    owner = fd.containing_type
    if name == "name" and owner is not None and owner.name == "RuleSet":
        return with_hostile(st.sampled_from(["default", "", "sochi", "leningrad", "rostov"]))
    if name == "name":
        return game_name(world)
    if name == "request_id":
        return with_hostile(
            st.one_of(
                fresh_ids(world),
                st.uuids().map(lambda u: u.hex),
                pick(lambda: world.request_ids),
                st.text(min_size=120, max_size=140),
            )
        )
    if name == "options_json":
        return options_json()
    if name == "page_token":
        return page_token(world)
    if name in ("player_id", "player_a", "player_b", "display_name"):
        return with_hostile(pick(lambda: world.players))
    if name == "league":
        return with_hostile(pick(lambda: world.leagues))
    if name in ("play_card", "cards"):
        return with_hostile(st.sampled_from(CARDS))
    if name in ("bid", "declare"):
        return with_hostile(st.sampled_from(BIDS + WORDS))
    if name == "reason":
        return with_hostile(st.sampled_from(["wrong score", "misdeal", ""]))
    return hostile_text()


def scalar_for(fd: FieldDescriptor, world: World) -> st.SearchStrategy[Any]:
    kind = fd.type
    if kind == FieldDescriptor.TYPE_STRING:
        return string_for(fd, world)
    if kind == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=64)
    if kind == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if kind == FieldDescriptor.TYPE_ENUM:
        assert fd.enum_type is not None
        numbers = [v.number for v in fd.enum_type.values]
        return st.one_of(st.sampled_from(numbers), st.sampled_from([-1, 99, 2**31 - 1]))
    if kind in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return st.floats(width=32 if kind == FieldDescriptor.TYPE_FLOAT else 64)
    if kind in (
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_SFIXED64,
    ):
        return integers(INT64)
    if kind in (FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_FIXED64):
        return integers((0, 2**64 - 1))
    if kind in (FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_FIXED32):
        return integers((0, 2**32 - 1))
    return integers(INT32)


def _repeated(fd: FieldDescriptor, element: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    if fd.name == "players":
        return st.one_of(st.lists(element, min_size=3, max_size=3), st.lists(element, max_size=5))
    return st.lists(element, max_size=4)


_CACHE: dict[tuple[int, str, int], st.SearchStrategy[Message]] = {}


def message_strategy(
    descriptor: Descriptor, world: World, depth: int = 0
) -> st.SearchStrategy[Message]:
    """Any message of this type: each field set or left unset, one member of each oneof."""
    key = (id(world), descriptor.full_name, depth)
    if key not in _CACHE:
        _CACHE[key] = _message_strategy(descriptor, world, depth)
    return _CACHE[key]


def _message_strategy(
    descriptor: Descriptor, world: World, depth: int
) -> st.SearchStrategy[Message]:
    cls = GetMessageClass(descriptor)
    parts: dict[str, st.SearchStrategy[Any]] = {}
    for fd in descriptor.fields:
        if fd.containing_oneof is not None and not fd.containing_oneof.name.startswith("_"):
            continue
        if fd.type == FieldDescriptor.TYPE_MESSAGE:
            if depth > 3:
                continue
            assert fd.message_type is not None
            element: st.SearchStrategy[Any] = message_strategy(fd.message_type, world, depth + 1)
        else:
            element = scalar_for(fd, world)
        if fd.is_repeated:
            parts[fd.name] = _repeated(fd, element)
        else:
            parts[fd.name] = st.one_of(st.none(), element, element)
    oneofs = [o for o in descriptor.oneofs if not o.name.startswith("_")]
    if not parts and not oneofs:
        return st.builds(cls)
    choices = st.tuples(*[st.sampled_from([None, *o.fields]) for o in oneofs])

    @st.composite
    def build(draw: st.DrawFn) -> Message:
        message = cls()
        for name, strategy in parts.items():
            _assign(message, descriptor.fields_by_name[name], draw(strategy))
        for member in draw(choices):
            if member is None:
                continue
            if member.type == FieldDescriptor.TYPE_MESSAGE:
                value = draw(message_strategy(member.message_type, world, depth + 1))
            else:
                value = draw(scalar_for(member, world))
            _assign(message, member, value)
        return message

    return build()


def _assign(message: Message, fd: FieldDescriptor, value: Any) -> None:
    if value is None:
        return
    if fd.is_repeated:
        getattr(message, fd.name).extend(value)
    elif fd.type == FieldDescriptor.TYPE_MESSAGE:
        getattr(message, fd.name).CopyFrom(value)
        getattr(message, fd.name).SetInParent()
    else:
        setattr(message, fd.name, value)
