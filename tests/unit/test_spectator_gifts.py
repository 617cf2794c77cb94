"""Spectators never see the two-player "с вареником" gift."""

from __future__ import annotations

import hashlib
import random

from domain.rules import PASS, Action, Phase, RuleSet, actor, legal_actions
from domain.rules.actions import GiveCards
from domain.rules.duo_options import DuoAllPass
from service.api.mapping import SPECTATOR
from service.api.streams import build
from service.gen.preferans.v1 import game_pb2 as pb
from tests.e2e.helpers import message_cards, public_by_version
from tests.unit.game_helpers import created_game


def test_a_varenik_gift_is_not_shown_to_spectators() -> None:
    """Two players "с вареником": the first hand gives his opponent two cards of his twelve.
    Both players know them; a spectator must not (they are in a hand). The spectator's
    message of the GiveCards decision names them (``action_to_proto`` never hides a gift)."""
    rules = RuleSet(players=2, pool_target=4, duo_all_pass=DuoAllPass.VARENIK)
    for n in range(20):
        seed = hashlib.sha256(f"varenik/{n}".encode()).digest()
        game = created_game(rules, 0, seed)
        game.deal_first(seed, "r0")
        rng = random.Random(n)
        step = 0
        gave = False
        while not gave and step < 60:
            deal = game.state.deal
            assert deal is not None
            legal = legal_actions(deal)
            choice: Action
            if deal.phase is Phase.BIDDING and PASS in legal:
                choice = PASS
            else:
                gifts = [a for a in legal if isinstance(a, GiveCards)]
                choice = gifts[0] if gifts else rng.choice(legal)
                gave = bool(gifts)
            step += 1
            game.act(actor(deal), choice, f"r{step}", seed)
        if not gave:
            continue
        events = list(game.collect_events())
        _, built = build(events, None)
        public = public_by_version(events)
        for updates in built:
            players = [pb.WatchGameResponse.FromString(u.message) for u in updates[:2]]
            spectator = pb.WatchGameResponse.FromString(updates[SPECTATOR].message)
            if not spectator.action.action.HasField("give_cards"):
                continue
            gift = spectator.action.action.give_cards
            named = message_cards(spectator) | set(gift.cards)
            leaked = named - public[spectator.version]
            assert not leaked, f"a spectator saw the gift {sorted(leaked)}"
            for message in players:  # both players see it (both hold or held the cards)
                assert len(message.action.action.give_cards.cards) == 2
            return
    raise AssertionError("no gift was made: the test did not run")
