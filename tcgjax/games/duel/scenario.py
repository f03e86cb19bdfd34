"""Build explicit *duel* situations from a readable description (for rule tests and examples).

>>> state = build_state(env, active=0, players=[
...     {"hand": ["goblin", "dragon"], "board": ["wolf"], "deck": ["spark"], "life": 5, "mana": 2},
...     {"hand": ["knight"], "life": 3},
... ])

Per player: ``deck``/``hand``/``board``/``discard`` card ids listed bottom to top (a hand's first card
is at position 0, a deck's last card is drawn first), ``life``, ``mana``, ``max_mana`` and
``exhausted`` (board positions that are exhausted). Cards of the player's decklist not placed anywhere
go to their discard, so every state has the full 24 cards (card conservation).
"""

from __future__ import annotations

from collections import Counter

import jax.numpy as jnp

from tcgjax.core.board import new_board
from tcgjax.core.env import State
from tcgjax.core.errors import ConfigError
from tcgjax.games.duel import rules

_KEYS = {"deck", "hand", "board", "discard", "life", "mana", "max_mana", "exhausted"}


def build_state(env, players, *, active: int = 0, turn_number: int | None = None) -> State:
    """A ``State`` of ``env`` (a ``DuelEnv``) in the described situation; see the module docstring.

    ``turn_number`` defaults to the first turn of the ``active`` player (1 for player 1, 2 for
    player 2): player 1 plays the odd turns, and ``validate`` refuses any other pairing.
    """
    if turn_number is None:
        turn_number = active + 1
    layout, registry = env.board_layout, env.rules.cards
    cards, attrs, exhausted = [], [], []
    for p, spec in enumerate(players):
        unknown = set(spec) - _KEYS
        if unknown:
            raise ConfigError(f"player {p + 1}: unknown key {sorted(unknown)[0]!r}")
        left = Counter(rules.DECKLIST)
        placed = {kind: list(spec.get(kind, [])) for kind in rules.ZONE_KINDS}
        for kind in rules.ZONE_KINDS:
            for cid in placed[kind]:
                if left[cid] <= 0:
                    raise ConfigError(f"player {p + 1}: more {cid!r} than the decklist holds")
                left[cid] -= 1
        placed["discard"] = list(left.elements()) + placed["discard"]
        for kind in rules.ZONE_KINDS:
            for pos, cid in enumerate(placed[kind]):
                cards.append((registry.index(cid), p, layout.zone_index(kind, p)))
                exhausted.append(kind == "board" and pos in spec.get("exhausted", ()))
        attrs.append(
            [
                spec.get("life", rules.START_LIFE),
                spec.get("mana", 0),
                spec.get("max_mana", spec.get("mana", 0)),
            ]
        )
    board = new_board(layout, cards, player_attributes=attrs, active_player=active)
    board = board.replace(
        card_attributes=jnp.asarray(exhausted, jnp.int16)[:, None],
        turn_number=jnp.int16(turn_number),
    )
    game = rules.DuelState(
        board=board, winner=jnp.int8(rules.NO_WINNER), end_reason=jnp.int8(rules.END_NONE)
    )
    template = env.init(jnp.zeros(2, jnp.uint32))
    return env.finalize(template.replace(game=game, step_count=jnp.int32(0)))
