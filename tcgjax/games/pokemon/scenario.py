"""Build explicit Pokémon situations from a readable description (rule tests, examples, notebooks).

>>> state = build_state(rules, active=0, turn=3, players=[
...     {"hand": ["sv3-68", "sve-4"], "slots": [["sv3-67", "sve-4"], None, ["sv2-78"]],
...      "damage": {0: 20}, "conditions": {"rotated": "asleep", "poisoned": True}},
...     {"slots": [["sv3-152"]], "prizes": ["sve-8"] * 6},
... ])

Per player, card ids bottom to top: ``deck`` (the last card is drawn first), ``hand``,
``discard``, ``prizes`` and ``slots`` (six piles at most: slot 0 the Active Pokémon, 1-5 the
Bench; ``None`` or ``[]`` leaves a slot empty; a pile lists the Basic first, then what evolved
from it and the attached Energy); ``damage`` and ``since`` (``{slot: value}``: damage on the
Pokémon, the turn it came into play or evolved, default 0); ``conditions`` (``{"rotated":
"asleep" | "confused" | "paralyzed", "poisoned": bool, "burned": bool}``); ``stadium`` (a
card id: the player's Stadium in play; one player at most). Every card of the
player's deck not placed goes to their deck, below the listed ones; ``prizes`` left out takes the
6 top cards of that rest (fewer if it runs out), so every situation holds exactly both decks.
Flags of the turn: ``energy_attached``, ``supporter_played``, ``retreated``, ``stadium_played``,
``stadium_used``, ``ko_last_turn``, ``vstar_used`` (per player: their VSTAR Power is spent);
``deck_pair``: the game's matchup (an index into ``rules.pairs``, default 0), whose decks the
players hold.
"""

from __future__ import annotations

from collections import Counter

import jax.numpy as jnp
import numpy as np

from tcgjax.core.board import new_board
from tcgjax.core.errors import ConfigError
from tcgjax.games.pokemon import rules as R
from tcgjax.games.pokemon.effects import effect_fields

__all__ = ["build_state"]

_KEYS = {"deck", "hand", "discard", "prizes", "slots", "damage", "since", "conditions", "stadium"}
_CONDITION_KEYS = {"rotated", "poisoned", "burned"}


def build_state(
    rules: R.PokemonRules,
    players,
    *,
    active: int = 0,
    phase: str = "main",
    turn: int = 3,
    first_player: int = 0,
    energy_attached: bool = False,
    supporter_played: bool = False,
    retreated: bool = False,
    stadium_played: bool = False,
    stadium_used: bool = False,
    ko_last_turn: tuple[bool, bool] = (False, False),
    vstar_used: tuple[bool, bool] = (False, False),
    deck_pair: int = 0,
) -> R.PokemonState:
    """A ``PokemonState`` in the described situation (see the module docstring).

    Raises:
      ConfigError: an unknown key, a card the player's deck does not hold (or too many of it),
        more than 6 slots, an unknown phase or condition, a Stadium that is not a Stadium card
        or one for each player.
    """
    if len(players) != 2:
        raise ConfigError("build_state: describe both players")
    if phase not in R.PHASES:
        raise ConfigError(f"build_state: unknown phase {phase!r}; have {R.PHASES}")
    if isinstance(deck_pair, bool) or not 0 <= int(deck_pair) < len(rules.pairs):
        raise ConfigError(
            f"build_state: deck_pair={deck_pair!r} is not a matchup index in "
            f"[0, {len(rules.pairs)})"
        )
    layout, registry = rules.layout, rules.cards
    placed = []
    damage = np.zeros((2, R.NUM_SLOTS), np.int16)
    since = np.zeros((2, R.NUM_SLOTS), np.int16)
    rotated = np.zeros(2, np.int8)
    poisoned, burned = np.zeros(2, bool), np.zeros(2, bool)
    for p, spec in enumerate(players):
        unknown = set(spec) - _KEYS
        if unknown:
            raise ConfigError(f"player {p + 1}: unknown key {sorted(unknown)[0]!r}")
        left = Counter(rules.seat_deck(deck_pair, p).cards)
        slots = list(spec.get("slots", []))
        if len(slots) > R.NUM_SLOTS:
            raise ConfigError(f"player {p + 1}: {len(slots)} slots, at most {R.NUM_SLOTS}")
        listed = {z: list(spec.get(z, [])) for z in ("deck", "hand", "discard", "prizes")}
        piles = [list(pile or []) for pile in slots]
        stadium = [spec["stadium"]] if "stadium" in spec else []
        for cards in list(listed.values()) + piles + [stadium]:
            for card in cards:
                if left[card] <= 0:
                    raise ConfigError(f"player {p + 1}: more {card!r} than their deck holds")
                left[card] -= 1
        rest = list(left.elements())
        if "prizes" not in spec:
            cut = max(len(rest) - R.PRIZES, 0)
            rest, listed["prizes"] = rest[:cut], rest[cut:]
        listed["deck"] = rest + listed["deck"]
        for zone, cards in listed.items():
            placed += [(registry.index(c), p, int(R.zone_of(zone, p))) for c in cards]
        for slot, pile in enumerate(piles):
            placed += [(registry.index(c), p, int(R.slot_zone(p, slot))) for c in pile]
        for c in stadium:
            if not bool(rules.is_stadium[registry.index(c)]):
                raise ConfigError(f"player {p + 1}: stadium {c!r} is not a Stadium card")
            if any(z == R.STADIUM_ZONE for _, _, z in placed):
                raise ConfigError(
                    "build_state: one Stadium in play at most (both players gave one)"
                )
            placed.append((registry.index(c), p, R.STADIUM_ZONE))
        for field, table in (("damage", damage), ("since", since)):
            for slot, value in spec.get(field, {}).items():
                table[p, int(slot)] = value
        conditions = dict(spec.get("conditions", {}))
        unknown = set(conditions) - _CONDITION_KEYS
        if unknown:
            raise ConfigError(f"player {p + 1}: unknown condition {sorted(unknown)[0]!r}")
        name = conditions.get("rotated", "none")
        if name not in R.ROTATED:
            raise ConfigError(f"player {p + 1}: rotated {name!r} not in {R.ROTATED}")
        rotated[p] = R.ROTATED.index(name)
        poisoned[p] = bool(conditions.get("poisoned", False))
        burned[p] = bool(conditions.get("burned", False))
    # Card instances in the rules' order: player by player.
    order = sorted(range(len(placed)), key=lambda i: placed[i][1])
    board = new_board(
        layout, [placed[i] for i in order], active_player=active, phase=R.PHASE[phase]
    )
    board = board.replace(turn_number=jnp.int16(turn))
    return R.PokemonState(
        board=board,
        damage=jnp.asarray(damage),
        since_turn=jnp.asarray(since),
        rotated=jnp.asarray(rotated),
        poisoned=jnp.asarray(poisoned),
        burned=jnp.asarray(burned),
        energy_attached=jnp.bool_(energy_attached),
        supporter_played=jnp.bool_(supporter_played),
        retreated=jnp.bool_(retreated),
        stadium_played=jnp.bool_(stadium_played),
        stadium_used=jnp.bool_(stadium_used),
        ko_by_attack=jnp.zeros(2, bool),
        ko_last_turn=jnp.asarray(ko_last_turn, bool),
        retreat_to=jnp.int8(0),
        retreat_units_left=jnp.int8(0),
        must_promote=jnp.zeros(2, bool),
        promote_then=jnp.int8(R.THEN_NEXT_TURN),
        mulligans=jnp.zeros(2, jnp.int8),
        bonus_draws=jnp.zeros(2, jnp.int8),
        placed=jnp.ones(2, bool),
        **effect_fields(R.NUM_SLOTS),
        abilities_used_by_name=jnp.zeros(rules.num_shared_abilities, bool),
        vstar_used=jnp.asarray(vstar_used, bool),
        first_player=jnp.int8(first_player),
        deck_pair=jnp.int8(deck_pair),
        winner=jnp.int8(R.NO_WINNER),
        end_reason=jnp.int8(0),
    )
