"""Build explicit Digimon situations from a readable description (rule tests, examples, notebooks).

>>> state = build_state(rules, active=0, memory=2, phase="main", players=[
...     {"hand": ["ST1-07", "ST1-13"], "field": [["ST1-01", "ST1-03"]], "security": ["ST1-16"]},
...     {"field": [["ST2-04"]], "suspended": [0], "deck": ["ST2-02"]},
... ])

Per player, card numbers bottom to top: ``deck`` (the last card is drawn first), ``eggs``, ``hand``
(position order), ``security`` (the last is checked first), ``trash``, ``breeding`` (one stack) and
``field`` (a list of stacks, slot by slot; ``None`` leaves a slot empty); ``suspended`` (field slots;
``"breeding"`` for the breeding area) and ``entered`` (``{slot: turn}``, the turn a permanent came into
play; default: turn 0, so it may attack). Every card of the player's decks not placed goes to the
player's deck (main-deck cards, below the listed ones) or egg deck (Digi-Eggs), so every situation
holds exactly both decks' cards (card conservation).
"""

from __future__ import annotations

from collections import Counter

import jax.numpy as jnp
import numpy as np

from tcgjax.core.board import new_board
from tcgjax.core.errors import ConfigError
from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon import rules as R

__all__ = ["build_state"]

_KEYS = {"deck", "eggs", "hand", "security", "trash", "breeding", "field", "suspended", "entered"}


def build_state(
    rules: R.DigimonRules,
    players,
    *,
    active: int = 0,
    memory: int = 0,
    phase: str = "main",
    turn: int = 2,
    first_player: int | None = None,
    deck_pair: int = 0,
) -> R.DigimonState:
    """A ``DigimonState`` in the described situation (see the module docstring).

    ``first_player`` defaults to the one the turn's parity names (the first player takes the
    odd turns), so that the situation is reachable.

    Raises:
      ConfigError: an unknown key, a card the player's decks do not hold (or too many of it), more
        than 12 field stacks, an unknown phase.
    """
    if len(players) != 2:
        raise ConfigError("build_state: describe both players")
    if phase not in A.PHASES:
        raise ConfigError(f"build_state: unknown phase {phase!r}")
    if isinstance(deck_pair, bool) or not 0 <= int(deck_pair) < len(rules.pairs):
        raise ConfigError(
            f"build_state: deck_pair={deck_pair!r} is not a matchup index in "
            f"[0, {len(rules.pairs)})"
        )
    layout, registry = rules.layout, rules.cards
    placed_cards, suspended = [], np.zeros((2, R.NUM_SLOTS), bool)
    entered = np.full((2, R.NUM_SLOTS), -1, np.int16)
    for p, spec in enumerate(players):
        unknown = set(spec) - _KEYS
        if unknown:
            raise ConfigError(f"player {p + 1}: unknown key {sorted(unknown)[0]!r}")
        eggs, main = rules.seat_deck(deck_pair, p)
        left = Counter(eggs) + Counter(main)
        stacks = {}
        if spec.get("breeding"):
            stacks[R.BREEDING_SLOT] = list(spec["breeding"])
        field = list(spec.get("field", []))
        if len(field) > A.FIELD_SLOTS:
            raise ConfigError(f"player {p + 1}: {len(field)} field stacks, at most 12")
        for slot, stack in enumerate(field):
            if stack:
                stacks[slot] = list(stack)
        listed = {z: list(spec.get(z, [])) for z in ("deck", "eggs", "hand", "security", "trash")}
        for cards in list(listed.values()) + list(stacks.values()):
            for number in cards:
                if left[number] <= 0:
                    raise ConfigError(f"player {p + 1}: more {number!r} than their decks hold")
                left[number] -= 1
        rest = list(left.elements())
        egg_kind = np.asarray(registry.numpy["kind"])
        rest_eggs = [n for n in rest if egg_kind[registry.index(n)] == R.DIGI_EGG]
        rest_main = [n for n in rest if egg_kind[registry.index(n)] != R.DIGI_EGG]
        listed["deck"] = rest_main + listed["deck"]
        listed["eggs"] = rest_eggs + listed["eggs"]
        for zone, cards in listed.items():
            placed_cards += [(registry.index(n), p, int(R.zone_of(zone, p))) for n in cards]
        for slot, stack in stacks.items():
            zone = int(R.SLOT_ZONES[p, slot])
            placed_cards += [(registry.index(n), p, zone) for n in stack]
            entered[p, slot] = spec.get("entered", {}).get(slot, 0)
        for slot in spec.get("suspended", []):
            suspended[p, R.BREEDING_SLOT if slot == "breeding" else slot] = True
    # Card instances in the env's order: player by player as in the rules' initial board.
    order = sorted(range(len(placed_cards)), key=lambda i: placed_cards[i][1])
    board = new_board(
        layout,
        [placed_cards[i] for i in order],
        active_player=active,
        phase=A.PHASES.index(phase),
    )
    board = board.replace(turn_number=jnp.int16(turn))
    if first_player is None:
        first_player = active if turn % 2 == 1 else 1 - active
    return R.DigimonState(
        board=board,
        memory=jnp.int8(memory),
        first_player=jnp.int8(first_player),
        suspended=jnp.asarray(suspended),
        entered_turn=jnp.asarray(entered),
        winner=jnp.int8(R.ONGOING),
        end_reason=jnp.int8(0),
        attacker=jnp.int8(-1),
        attack_target=jnp.int8(-1),
        deck_pair=jnp.int8(deck_pair),
        **R.empty_effects(rules.num_cards),
    )
