"""The Pokémon observation: the board encoding of ``pokemon_board_encoding_v2_1.md`` (v2.1, 68 dims
a slot, P5; or v1, 14) followed by what a player needs beyond the board, from one player's view.

Layout (:func:`layout`; ``N`` card definitions of the registry, 0 = padding; ``W`` = 68 or 14):

==================  ===========  ==============================================================
slice               shape        content
==================  ===========  ==============================================================
``board``           [12, W]      the observer's 6 slots (Active, Bench 1-5), then the opponent's
                                 (P1), each by the chosen encoding (``encoding.py``)
``my_hand``         [N]          cards of each definition in the observer's hand
``my_looking``      [N]          cards the observer is looking at (Great Ball, Rika, ...)
``my_discard``      [N]          the observer's discard pile, per definition (public)
``opponent_discard`` [N]         the opponent's discard pile, per definition (public)
``stadium``         [N]          the Stadium in play, one-hot by definition (all 0: none)
``counts``          [6]          deck, hand and Prize cards of the observer, then the opponent's
``conditions``      [2, 6]       each Active Pokémon (observer first): Asleep / Confused /
                                 Paralyzed / none one-hot, Poisoned, Burned
``slot_flags``      [12, 7]      per slot: came into play or evolved this turn, Ability used this
                                 turn, can't attack this turn, protected from attack effects,
                                 holds a Pokémon Tool, takes less damage from attacks this turn,
                                 one of its attacks is locked this turn (Memory Skip)
``turn``            [15]         the observer decides, the observer went first, turn number,
                                 Energy attached / Supporter played / retreated this turn, own and
                                 opponent's Pokémon Knocked Out by an attack last turn, own and
                                 opponent's pending promotion, the Stadium in play is the
                                 observer's, a Stadium played / its effect used this turn, own and
                                 opponent's VSTAR Power used
``phase``           [8]          one-hot of ``rules.PHASES``
``selection``       [52]         the pending choice: its op one-hot (46), its stage one-hot
                                 (pick / place / order / from / attack), choices left (at most
                                 10)
==================  ===========  ==============================================================

Hidden information is the core's visibility (``tcgjax/core/visibility.py``): the opponent's hand,
both decks and the Prize cards are counts only; a Pokémon placed face down during setup is shown
as an empty slot until both players have set up. Counts are raw (a network scales its inputs).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from tcgjax.core import zones
from tcgjax.core.observation import ObservationLayout
from tcgjax.core.primitives import in_force
from tcgjax.core.visibility import visible_mask
from tcgjax.games.pokemon import encoding as E
from tcgjax.games.pokemon import rules as R
from tcgjax.games.pokemon.cards import KINDS, OPS, TYPES

__all__ = ["ENCODINGS", "layout", "Observer"]

ENCODINGS = ("v2.1", "v1")
SELECTION_STAGES = len(R.SELECTION_STAGES)  # pick, place, order, from, attack
# Picks left of a choice, capped: "discard any amount" (Hail Blade) counts as this many.
MAX_LEFT_SHOWN = 10


def layout(num_definitions: int, encoding: str) -> ObservationLayout:
    """The observation layout for a registry of ``num_definitions`` and an encoding."""
    width = E.V21_DIMS if encoding == "v2.1" else E.V1_DIMS
    n = num_definitions
    return ObservationLayout(
        [
            ("board", (2 * R.NUM_SLOTS, width), f"12 slots, {encoding} encoding (observer first)"),
            ("my_hand", (n,), "observer's hand, cards per definition"),
            ("my_looking", (n,), "cards the observer is looking at, per definition"),
            ("my_discard", (n,), "observer's discard pile, per definition"),
            ("opponent_discard", (n,), "opponent's discard pile, per definition"),
            ("stadium", (n,), "the Stadium in play, one-hot by definition"),
            ("counts", (6,), "deck, hand, prizes: observer then opponent"),
            ("conditions", (2, 6), "each Active: rotated one-hot (4), poisoned, burned"),
            (
                "slot_flags",
                (2 * R.NUM_SLOTS, 7),
                "new this turn, ability used, can't attack, protected, holds a Tool, takes less "
                "damage, an attack locked",
            ),
            (
                "turn",
                (15,),
                "decides, went first, turn, flags, knock-outs, promotions, Stadium, "
                "VSTAR Powers used",
            ),
            ("phase", (len(R.PHASES),), "phase one-hot"),
            ("selection", (len(OPS) + SELECTION_STAGES + 1,), "pending choice: op, stage, left"),
        ]
    )


def network_input_scale(obs_layout: ObservationLayout, encoding: str) -> np.ndarray | None:
    """Per-entry factors for a network's input (the observation itself stays as the spec writes
    it): v1's raw HP and MaxHP (board columns 1 and 2, up to ~340) get v2.1's scale, 1/300, so a
    comparison of the two encodings compares what they hold, not whether HP is normalised; every
    other entry, and all of v2.1, keeps factor 1 (``None`` for v2.1)."""
    if encoding == "v2.1":
        return None
    scale = np.ones(obs_layout.size, np.float32)
    start, shape, _ = obs_layout.slices["board"]
    columns = start + np.arange(int(np.prod(shape))).reshape(shape)
    scale[columns[:, 1:3].reshape(-1)] = 1.0 / E.HP_SCALE
    return scale


class Observer:
    """Static tables of one rules object for :meth:`observe`."""

    def __init__(self, rules: R.PokemonRules, encoding: str):
        self.rules = rules
        self.encoding = encoding
        self.layout = layout(len(rules.cards), encoding)
        self.static = E.static_table(rules.cards)
        c = rules.cards.numpy
        special = c["kind"] == KINDS.index("special_energy")
        units = c["provides"].sum(axis=1)
        self.is_special = jnp.asarray(special.astype(np.float32))
        self.special_extra = jnp.asarray(np.where(special, units - 1, 0).astype(np.float32))
        # v1: an Energy card counts once, under the first type it provides (DTE: Colorless).
        first_type = np.argmax(c["provides"] > 0, axis=1)
        card_type = np.zeros((len(rules.cards), len(TYPES)), np.int32)
        card_type[np.arange(len(rules.cards)), first_type] = units > 0
        self.energy_card_type = jnp.asarray(card_type.astype(np.float32))

    def bound_table(self) -> dict[str, tuple[np.ndarray | float, np.ndarray | float]]:
        """``{slice: (low, high)}`` of :meth:`observe` (``Env.observation_bounds``), from the
        decks of every matchup and the card registry: a slot holds only its owner's cards (the
        rules' invariant "every card in a zone of its owner"), and either seat may be the
        observer and hold any of the decks, so a bound over one player's cards is the largest
        (or smallest) of the decks'.

        Unbounded: the remaining HP's low (``board`` column ``HP``, both encodings). While an
        attack waits on a choice its damage is already on the Defending Pokémon, up to any
        amount over its HP (the Knock Out comes when the attack finishes: the damage invariant
        of ``rules.validate``), and the attack's total (printed damage, modifier rows per damage
        counter or Energy, Weakness) is not bounded here.
        """
        rules = self.rules
        c = rules.cards.numpy
        n = len(rules.cards)
        # Every deck of every matchup: either may sit in either seat.
        defs = np.asarray(rules.pair_definitions, np.int64).reshape(-1, R.DECK_SIZE)
        copies = np.stack([np.bincount(d, minlength=n) for d in defs])  # [decks, N]
        in_decks = copies.max(axis=0) > 0
        kind = np.asarray(c["kind"])
        pokemon = (kind == KINDS.index("pokemon")) & in_decks
        special = kind == KINDS.index("special_energy")
        energy = special | (kind == KINDS.index("basic_energy"))
        energy_copies = copies * energy  # [decks, N]: each deck's Energy cards, all attachable

        def most(per_deck):  # the larger deck's value (per entry)
            return np.max(per_deck, axis=0)

        provides = np.asarray(c["provides"], np.int64)  # [N, 11]
        modifier = np.asarray(c["damage_modifier"], np.int64)
        bonus = np.maximum(np.asarray(rules.hp_bonus)[:, 0], 0)  # a passive HP bonus (Orthworm)
        max_hp = float(np.max(np.where(pokemon, c["hp"] + bonus, 0)))
        static = np.asarray(self.static)[pokemon]  # the deck Pokémon's rows (0 when empty)
        width = E.V21_DIMS if self.encoding == "v2.1" else E.V1_DIMS
        low, high = np.zeros(width), np.zeros(width)
        if self.encoding == "v2.1":
            at = E.feature_slices(E.V21_FEATURES)
            cut = np.cumsum([0] + [w for name, w in E.V21_FEATURES if name in E.STATIC_FEATURES])
            for i, name in enumerate(E.STATIC_FEATURES):
                column = static[:, cut[i] : cut[i + 1]]
                low[at[name]] = np.minimum(column.min(axis=0, initial=0.0), 0.0)
                high[at[name]] = np.maximum(column.max(axis=0, initial=0.0), 0.0)
            high[at["occupied"]] = 1.0
            low[at["HP"]], high[at["HP"]] = -np.inf, max_hp / E.HP_SCALE
            high[at["MaxHP"]] = max_hp / E.HP_SCALE
            high[at["effectiveEnergy"]] = most(energy_copies @ provides)
            high[at["specialEnergyCount"]] = most(copies @ special)
            extra = np.where(special, provides.sum(axis=1) - 1, 0)
            high[at["specialProvidesExtra"]] = most(copies @ extra)
            low[at["specialDamageMod"]] = (
                np.min(energy_copies @ np.minimum(modifier, 0)) / E.DAMAGE_SCALE
            )
            high[at["specialDamageMod"]] = most(energy_copies @ np.maximum(modifier, 0))
            high[at["specialDamageMod"]] /= E.DAMAGE_SCALE
        else:
            at = E.feature_slices(E.V1_FEATURES)
            # -1 for an empty (or face-down) slot, else the Pokémon's registry index.
            low[at["cardIndex"]] = -1.0
            high[at["cardIndex"]] = float(np.flatnonzero(pokemon).max())
            low[at["HP"]], high[at["HP"]] = -np.inf, max_hp
            high[at["MaxHP"]] = max_hp
            card_type = np.asarray(self.energy_card_type, np.int64)  # once, under its first type
            high[at["energy"]] = most(energy_copies @ card_type)
        per_definition = (0.0, most(copies).astype(np.float64))  # at most a deck's copies
        # The choices left of a selection: a row's count or the cards it looks at (at least 1).
        rows = lambda name: np.asarray(c[f"effects.{name}"])[in_decks]  # noqa: E731
        max_left = max(1, int(rows("count").max(initial=0)), int(rows("look").max(initial=0)))
        if np.any(rows("op") == OPS.index("discard_energy_for_damage")):
            max_left = max(max_left, MAX_LEFT_SHOWN)  # "any amount" shows the cap
        turn_high = np.ones(15)
        turn_high[2] = rules.max_turns + 1  # the turn limit ends the game as turn max + 1 begins
        turn_low = np.zeros(15)
        turn_low[2] = 1.0  # setup is turn 1 (the rules' invariant on the turn number)
        selection_high = np.ones(len(OPS) + SELECTION_STAGES + 1)
        selection_high[-1] = max_left
        return {
            "board": (low, high),
            "my_hand": per_definition,
            "my_looking": per_definition,
            "my_discard": per_definition,
            "opponent_discard": per_definition,
            "stadium": (0.0, 1.0),
            # Deck and hand: at most a player's 60 cards; Prize cards: at most 6.
            "counts": (0.0, [R.DECK_SIZE, R.DECK_SIZE, R.PRIZES] * 2),
            "conditions": (0.0, 1.0),
            "slot_flags": (0.0, 1.0),
            "turn": (turn_low, turn_high),
            "phase": (0.0, 1.0),
            "selection": (0.0, selection_high),
        }

    def board(self, state: R.PokemonState, player) -> tuple[jax.Array, jax.Array]:
        """``(float32[12, W], shown bool[12])``: the board encoding seen by ``player`` (int32[]),
        the player's slots first (P1); a slot whose Pokémon ``player`` can't see is empty."""
        rules, board = self.rules, state.board
        me = jnp.asarray(player, jnp.int32)
        order = jnp.stack([me, 1 - me])
        view = rules.slot_view(state)
        seen = visible_mask(rules.layout, board, me)
        top = view["card"].reshape(-1)
        shown = (top >= 0) & seen[jnp.maximum(top, 0)]

        def mine_first(x):
            return x[order].reshape((2 * R.NUM_SLOTS,) + x.shape[2:])

        shown = mine_first(shown.reshape(2, R.NUM_SLOTS))
        definition = jnp.where(shown, mine_first(view["definition"]), -1)
        max_hp = jnp.where(shown, mine_first(view["hp"]), 0)
        hp = jnp.where(shown, max_hp - mine_first(state.damage).astype(jnp.int32), 0)
        # float32 products of small integers are exact and several times cheaper than integer
        # ones under vmap on the CPU.
        energy = mine_first(view["energy_cards"]).astype(jnp.float32)  # [12, N]
        if self.encoding == "v2.1":
            encoded = E.encode_slots_v21(
                self.static,
                definition,
                hp,
                max_hp,
                mine_first(view["units"]),
                (energy @ self.is_special).astype(jnp.int32),
                (energy @ self.special_extra).astype(jnp.int32),
                mine_first(view["damage_modifier"]),
            )
        else:
            per_type = (energy @ self.energy_card_type).astype(jnp.int32)
            encoded = E.encode_slots_v1(definition, hp, max_hp, per_type)
            encoded = jnp.where(shown[:, None], encoded, jnp.where(
                jnp.arange(encoded.shape[1]) == 0, -1.0, 0.0))  # fmt: skip
        return encoded, shown

    def observe(self, state: R.PokemonState, player) -> jax.Array:
        """float32[O]: ``state`` seen by ``player`` (int32[]). Pure; jit- and vmap-safe."""
        rules, board = self.rules, state.board
        me = jnp.asarray(player, jnp.int32)
        order = jnp.stack([me, 1 - me])
        seen = visible_mask(rules.layout, board, me)
        board_part, shown = self.board(state, me)

        def mine_first(x):
            return x[order].reshape((2 * R.NUM_SLOTS,) + x.shape[2:])

        # The seen cards of four zones counted per definition with one scatter (four [C, N]
        # one-hot sums cost several times more under vmap on the CPU).
        counted_zones = jnp.stack(
            [
                R.zone_of("hand", me),
                R.zone_of("looking", me),
                R.zone_of("discard", me),
                R.zone_of("discard", 1 - me),
            ]
        )
        matches = (board.zone[None, :] == counted_zones[:, None]) & seen[None, :]  # [4, C]
        group = jnp.where(jnp.any(matches, axis=0), jnp.argmax(matches, axis=0), -1)
        per_definition = zones.grouped_definition_counts(board, group, 4, len(rules.cards))

        def count(name, p):
            return zones.zone_count(board, R.zone_of(name, p))

        opponent = 1 - me
        turn = board.turn_number.astype(jnp.int32)
        stadium = rules.stadium_card(board)
        rotated = jax.nn.one_hot(state.rotated[order], len(R.ROTATED))
        conditions = jnp.concatenate(
            [rotated, state.poisoned[order][:, None], state.burned[order][:, None]], axis=1
        )
        slot_flags = (
            jnp.stack(
                [
                    mine_first(state.since_turn) == turn,
                    mine_first(state.ability_used),
                    in_force(mine_first(state.cannot_attack_turn), turn),
                    mine_first(rules.protected_slots(state)),
                    mine_first(rules.slot_view(state)["tool"]),
                    in_force(mine_first(state.reduced_turn), turn),
                    in_force(mine_first(state.locked_turn), turn),
                ],
                axis=1,
            )
            & shown[:, None]
        )
        turn_part = jnp.stack(
            [
                board.active_player == me,
                state.first_player == me,
                turn,
                state.energy_attached,
                state.supporter_played,
                state.retreated,
                state.ko_last_turn[me],
                state.ko_last_turn[opponent],
                state.must_promote[me],
                state.must_promote[opponent],
                (stadium >= 0) & (board.owner[jnp.maximum(stadium, 0)] == me),
                state.stadium_played,
                state.stadium_used,
                state.vstar_used[me],
                state.vstar_used[opponent],
            ]
        )
        sel = state.selection
        pending = sel.pending()
        source = board.definition[jnp.maximum(sel.card.astype(jnp.int32), 0)].astype(jnp.int32)
        op = rules.row["op"][source, jnp.maximum(sel.row.astype(jnp.int32), 0)]
        selection = jnp.concatenate(
            [
                jax.nn.one_hot(op, len(OPS)) * pending,
                jax.nn.one_hot(sel.stage, SELECTION_STAGES) * pending,
                (jnp.minimum(sel.left, MAX_LEFT_SHOWN) * pending)[None],
            ]
        )
        return self.layout.pack(
            dict(
                board=board_part,
                my_hand=per_definition[0],
                my_looking=per_definition[1],
                my_discard=per_definition[2],
                opponent_discard=per_definition[3],
                stadium=jax.nn.one_hot(rules.stadium_definition(board), len(rules.cards))
                * (stadium >= 0),
                counts=jnp.stack(
                    [
                        count("deck", me),
                        count("hand", me),
                        count("prizes", me),
                        count("deck", opponent),
                        count("hand", opponent),
                        count("prizes", opponent),
                    ]
                ),
                conditions=conditions,
                slot_flags=slot_flags,
                turn=turn_part,
                phase=jax.nn.one_hot(board.phase, len(R.PHASES)),
                selection=selection,
            )
        )
