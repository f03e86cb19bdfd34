"""The Pokémon effect interpreter: card effect rows (``cards.py``) executed by a budgeted set of
primitives, with the core's :class:`~tcgjax.core.effects.EffectQueue` and
:class:`~tcgjax.core.effects.Selection` records.

**Activations.** An attack, a Trainer played from the hand and an activated Ability each queue the
card's rows for that use (``where`` = ``attack<i>``, ``play``, ``ability``) in row order; the rows
then resolve one at a time until the queue is empty or a row waits on a choice (the ``select``
phase: ``select_card[d]``, ``select_slot[k]``, ``done``). When the queue is empty the activation
finishes: an attack deals its damage (if no row made it do so earlier), then the Knock Outs and
the end of the turn follow; a Trainer goes to the discard pile.

**Rows.** A row's gates (a conjunction of at most ``MAX_GATES``, all of which must hold) are
checked when it resolves, as one truth vector over ``GATES`` masked by the row: ``heads`` /
``tails`` read the activation's one coin, flipped when the first row that reads it resolves with
its other gates holding ("if you do, flip a coin": no flip when it was not done); ``condition``
reads the named condition; ``previous`` needs the row before to have done something (a row whose
gates failed did nothing). Then its op (``OPS``):

* damage modifiers, which only add to the attack's damage: ``extra_damage`` (+amount),
  ``extra_damage_per_counter`` (+amount per damage counter on the Defending Pokémon),
  ``extra_damage_per_energy`` (+amount per Energy unit of ``energy_type`` on this Pokémon),
  ``attack_does_nothing`` (no damage, no later row);
* every other op first deals the attack's damage (printed + modifiers: rules R8 apply) if it has
  not been dealt — the card texts do their damage, then their other effects — then acts:
  ``damage`` (``amount`` to the Defending Pokémon, with Weakness and Resistance),
  ``bench_damage`` (``amount`` to ``count`` chosen opponent's Benched Pokémon, never Weakness
  or Resistance), ``apply_status``, ``gust`` / ``switch`` (a chosen Benched Pokémon becomes the
  Active one), ``heal`` (a chosen damaged Pokémon of the player), ``draw``, ``draw_until``
  (``count``; 0 = the opponent's hand size), ``shuffle_hand_draw``, ``cannot_attack_next_turn`` and
  ``prevent_attack_effects`` (on this Pokémon, until the end of the player's next turn / the
  opponent's next turn; both end when it moves to the Bench or evolves), and the card choices:
  ``search_hand`` / ``search_bench`` / ``search_attach_energy`` (from the deck), ``look_take`` /
  ``look_attach_energy`` (from the top ``look`` cards, set aside in the player's ``looking`` zone;
  the rest are shuffled back or go to the bottom in the order the player picks them),
  ``discard_to_hand`` / ``discard_attach_energy`` (from the discard pile; with an ``amount``, that
  much damage on the Pokémon it goes to, never a Knock Out), ``discard_energy``
  (attached to this Pokémon), ``discard_from_hand_cost`` (an Ability's cost), ``move_counters``
  (up to ``amount`` from each of the player's Pokémon onto a chosen one of the opponent's),
  ``cure_self``, ``shuffle_self_into_deck`` (the attacker and its cards into the deck), and the
  choice of one of the opponent's Active Pokémon's attacks (the ATTACK stage, ``attack[i]``):
  ``lock_attack`` (not usable in the opponent's next turn) and ``copy_attack`` (its rows and
  damage become this attack's).
* ``hp_bonus`` is passive: the slot view adds it to the maximum HP while its condition holds.

**Choices.** A choice among hidden cards of a kind (a deck search, a look at the deck for
Pokémon or Energy) is "up to": the player may stop (``done``), as the rules let a player fail to
find a card in a hidden zone; a choice among cards that are all valid (Rika's look at 4 with no
filter), among public cards (the discard pile, attached Energy) or of a Pokémon is mandatory while
a valid choice exists, and a row with no valid choice does nothing. Energy attached "in any way you
like" is one card, then the Pokémon it goes to, ``count`` times. A Pokémon protected by
``prevent_attack_effects`` can't be chosen by ``gust`` nor get a Special Condition.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from tcgjax.core import zones
from tcgjax.core.board import set_turn
from tcgjax.core.effects import EffectQueue, Selection
from tcgjax.core.primitives import (
    CONTROLLERS_NEXT_TURN,
    OPPONENTS_NEXT_TURN,
    CardFilters,
    for_each,
    in_force,
    last_turn,
)
from tcgjax.core.tree import tree_where, when_any, when_some
from tcgjax.games.pokemon.cards import (
    CARD_FILTERS,
    CONDITIONS,
    EFFECT_FLAGS,
    GATES,
    KINDS,
    MAX_EFFECTS,
    OPS,
    OPTIONAL_TYPE,
    RESTS,
    RULE_BOX_TAGS,
    STAGES,
    STATUSES,
    TAGS,
    TARGETS,
    WHERE,
)

OP = {name: i for i, name in enumerate(OPS)}
TARGET = {name: i for i, name in enumerate(TARGETS)}
CONDITION = {name: i for i, name in enumerate(CONDITIONS)}
FLAG = {name: 1 << i for i, name in enumerate(EFFECT_FLAGS)}

# Activation kinds (``effect_kind``).
NO_EFFECT, ATTACK, TRAINER, ABILITY, STADIUM = 0, 1, 2, 3, 4
WHERE_PLAY, WHERE_ABILITY = WHERE.index("play"), WHERE.index("ability")
WHERE_STADIUM = WHERE.index("stadium")

MODIFIER_OPS = ("extra_damage", "extra_damage_per_counter", "extra_damage_per_energy",
                "attack_does_nothing", "hp_bonus", "extra_damage_per_heads",
                "discard_energy_for_damage", "extra_damage_per_own_counter",
                "extra_damage_per_prize_taken")  # fmt: skip
# Where a card choice picks from, and where the card goes.
SOURCES = ("none", "deck", "discard", "attached", "looking", "hand", "stadium")
DESTINATIONS = ("none", "hand", "bench", "attach", "discard", "deck", "evolve")
SOURCE_OF = {
    "search_hand": "deck",
    "search_bench": "deck",
    "search_attach_energy": "deck",
    "discard_to_hand": "discard",
    "discard_attach_energy": "discard",
    "discard_energy": "attached",
    "look_take": "looking",
    "look_attach_energy": "looking",
    "discard_from_hand_cost": "hand",
    "hand_attach_energy": "hand",
    "discard_to_deck": "discard",
    "discard_energy_for_damage": "attached",  # on the Pokémon chosen first (stage FROM)
    "rare_candy": "hand",
    "discard_stadium": "stadium",  # a choice only when the row is ``optional`` (Pidgeot ex)
    "evolve_from_deck": "deck",  # TM: Evolution's attack
}
DESTINATION_OF = {
    "search_hand": "hand",
    "search_bench": "bench",
    "search_attach_energy": "attach",
    "discard_to_hand": "hand",
    "discard_attach_energy": "attach",
    "discard_energy": "discard",
    "look_take": "hand",
    "look_attach_energy": "attach",
    "discard_from_hand_cost": "discard",
    "hand_attach_energy": "attach",
    "discard_to_deck": "deck",
    "discard_energy_for_damage": "discard",
    "rare_candy": "evolve",
    "discard_stadium": "discard",  # its owner's
    "evolve_from_deck": "evolve",  # onto a Benched Pokémon it evolves from (stage PLACE)
}
SLOT_OPS = ("gust", "switch", "heal", "bench_damage", "move_counters",  # a Pokémon, no card
            "discard_energy_for_damage")  # a Pokémon first, then an Energy on it  # fmt: skip
# A choice of one of the opponent's Active Pokémon's attacks (the ATTACK stage, ``attack[i]``).
ATTACK_CHOICE_OPS = ("lock_attack", "copy_attack")
UP_TO_OPS = ("search_hand", "search_bench", "search_attach_energy", "look_attach_energy",
             "discard_energy_for_damage", "evolve_from_deck")  # fmt: skip
# Stages of a selection (``Selection.stage``): PICK the card (or the Pokémon), PLACE the picked
# Energy on a Pokémon, ORDER the rest under the deck, FROM: the card on the Pokémon just picked,
# ATTACK: one of the opponent's Active Pokémon's attacks (chosen with ``attack[i]``).
PICK, PLACE, ORDER, FROM, ATTACK_STAGE = 0, 1, 2, 3, 4
SELECTION_STAGES = ("pick", "place", "order", "from", "attack")
# "Discard any amount ... from your Pokémon": a Pokémon, then one of its cards, as often as the
# player likes (``count`` 0 = no limit: this many picks at most, more than any board holds).
NO_LIMIT = 60

_SOURCE = np.asarray([SOURCES.index(SOURCE_OF.get(op, "none")) for op in OPS], np.int32)
_DESTINATION = np.asarray(
    [DESTINATIONS.index(DESTINATION_OF.get(op, "none")) for op in OPS], np.int32
)
_IS_MODIFIER = np.asarray([op in MODIFIER_OPS for op in OPS])
_IS_SLOT_OP = np.asarray([op in SLOT_OPS for op in OPS])
_IS_CARD_OP = _SOURCE > 0
_UP_TO = np.asarray([op in UP_TO_OPS for op in OPS])
_TWO_STEP = np.asarray([op == "discard_energy_for_damage" for op in OPS])
_ATTACK_CHOICE = np.asarray([op in ATTACK_CHOICE_OPS for op in OPS])
_IS_COIN_GATE = np.asarray([g in ("heads", "tails") for g in GATES])
_ROTATED_OF_STATUS = {"asleep": 1, "confused": 2, "paralyzed": 3}
_STATUS_ROTATED = np.asarray([_ROTATED_OF_STATUS.get(s, 0) for s in STATUSES], np.int8)


def effect_fields(num_slots: int, queue_size: int = MAX_EFFECTS) -> dict[str, jax.Array]:
    """The interpreter's fields of a state with no activation in progress."""
    return dict(
        queue=EffectQueue.empty(queue_size),
        selection=Selection.none(),
        effect_kind=jnp.int8(NO_EFFECT),
        effect_player=jnp.int8(-1),
        effect_card=jnp.int16(-1),
        effect_slot=jnp.int8(-1),
        attack_index=jnp.int8(-1),
        coin=jnp.int8(-1),
        previous=jnp.bool_(False),
        bonus_damage=jnp.int16(0),
        does_nothing=jnp.bool_(False),
        damage_dealt=jnp.bool_(False),
        turn_ending=jnp.bool_(False),
        evolved_card=jnp.int16(-1),
        evolved_slot=jnp.int8(-1),
        effect_evolved=jnp.zeros(num_slots, bool),
        ability_used=jnp.zeros((2, num_slots), bool),
        cannot_attack_turn=jnp.zeros((2, num_slots), jnp.int16),
        protected_turn=jnp.zeros((2, num_slots), jnp.int16),
        reduced_turn=jnp.zeros((2, num_slots), jnp.int16),
        locked_attack=jnp.zeros((2, num_slots), jnp.int8),
        locked_turn=jnp.zeros((2, num_slots), jnp.int16),
    )


class Interpreter:
    """Mixin of :class:`~tcgjax.games.pokemon.rules.PokemonRules`: the effect tables and the
    interpreter. Needs the rules' ``cards``, ``layout`` and slot helpers."""

    def _effect_tables(self) -> None:
        c = self.cards.numpy
        n = len(self.cards)
        rows = np.arange(MAX_EFFECTS)[None, :] < c["effects.num_rows"][:, None]
        self.row_live = jnp.asarray(rows)  # [N, R]
        self.row_where = jnp.asarray(np.where(rows, c["effects.where"], -1).astype(np.int32))
        cols = ("condition", "condition_value", "op", "amount", "count", "look", "target",
                "target_type", "card_filter", "energy_type", "status", "rest", "flags",
                "max_hp")  # fmt: skip
        self.row = {k: jnp.asarray(c[f"effects.{k}"].astype(np.int32)) for k in cols}
        # The gates a row needs, unpacked from the bit mask: bool[N, R, G] (GATES order).
        gate_bits = c["effects.gate"].astype(np.int32)[..., None] >> np.arange(len(GATES))
        self.row["gates"] = jnp.asarray((gate_bits & 1).astype(bool))
        kind = c["kind"].astype(np.int32)
        stage = c["stage"].astype(np.int32)
        energy = (kind == KINDS.index("basic_energy")) | (kind == KINDS.index("special_energy"))
        pokemon = kind == KINDS.index("pokemon")
        rule_box = sum(1 << TAGS.index(t) for t in RULE_BOX_TAGS)
        filters = {
            "any": np.arange(n) > 0,
            "pokemon": pokemon,
            "basic_pokemon": pokemon & (stage == STAGES.index("basic")),
            "evolution_pokemon": pokemon & (stage >= STAGES.index("stage1")),
            "energy": energy,
            "basic_energy": kind == KINDS.index("basic_energy"),
            "supporter": kind == KINDS.index("supporter"),
            "pokemon_or_basic_energy": pokemon | (kind == KINDS.index("basic_energy")),
            "item": kind == KINDS.index("item"),
            "tool": kind == KINDS.index("tool"),
            "basic_pokemon_no_rule_box": pokemon
            & (stage == STAGES.index("basic"))
            & ((c["tags"].astype(np.int32) & rule_box) == 0),
            "trainer": (np.arange(n) > 0) & ~pokemon & ~energy,
            "pokemon_vstar_or_vmax": pokemon
            & (
                (
                    c["tags"].astype(np.int32)
                    & ((1 << TAGS.index("vstar")) | (1 << TAGS.index("vmax")))
                )
                != 0
            ),
        }
        self.filter_match = jnp.asarray(np.stack([filters[f] for f in CARD_FILTERS]))  # [F, N]
        # energy_type (0 = any) against what an Energy card provides, or a Pokémon card's type
        # (Miraidon ex's Tandem Unit: Basic Lightning Pokémon).
        provides = c["provides"] > 0
        typed = np.arange(1, len(OPTIONAL_TYPE))[:, None] == c["type"].astype(np.int64)[None, :]
        type_match = np.concatenate(
            [np.ones((1, n), bool), (provides.T & energy[None, :]) | (typed & pokemon[None, :])]
        )
        self.type_match = jnp.asarray(type_match)  # [12, N]
        # What each row's search may take (its card filter, Energy type and HP bound; a card
        # taken from a Pokémon is any Energy there): the core's filter table, one lookup per card.
        hp = c["hp"].astype(np.int64)
        attached = _SOURCE[c["effects.op"].astype(np.int64)] == SOURCES.index("attached")
        card_filter = np.where(attached, CARD_FILTERS.index("energy"), c["effects.card_filter"])
        keys = [
            [
                (int(card_filter[d, r]), int(c["effects.energy_type"][d, r]),
                 int(c["effects.max_hp"][d, r]))
                for r in range(int(c["effects.num_rows"][d]))
            ]
            for d in range(n)
        ]  # fmt: skip
        named = np.stack([filters[f] for f in CARD_FILTERS])
        self.search_filters = CardFilters.build(
            keys,
            MAX_EFFECTS,
            lambda key: named[key[0]] & type_match[key[1]] & ((key[2] == 0) | (hp <= key[2])),
        )
        self.is_supporter = jnp.asarray(kind == KINDS.index("supporter"))
        activation = c["abilities.activation"][:, 0]
        has_ability = c["abilities.num_rows"] > 0
        self.has_activated = jnp.asarray(has_ability & (activation == 0) & pokemon)
        # A Pokémon Tool that gives its holder an activated Ability (Forest Seal Stone), used by
        # ``tool_ability[slot]``; such an Ability may need a Pokémon V holder, and a VSTAR Power
        # is one a game for each player (``vstar_used``).
        tool = kind == KINDS.index("tool")
        self.tool_ability = jnp.asarray(has_ability & (activation == 0) & tool)
        on_ability_rows = rows & (c["effects.where"] == WHERE_ABILITY)
        self.ability_needs_v = jnp.asarray(
            np.any(
                on_ability_rows & (c["effects.condition"] == CONDITION["self_pokemon_v"]), axis=1
            )
        )
        self.ability_vstar = jnp.asarray(
            np.any(on_ability_rows
                   & ((c["effects.flags"].astype(np.int32) & FLAG["vstar_power"]) != 0), axis=1)
        )  # fmt: skip
        v_tags = sum(1 << TAGS.index(t) for t in ("v", "vstar", "vmax"))
        self.is_pokemon_v = jnp.asarray(pokemon & ((c["tags"].astype(np.int32) & v_tags) != 0))
        # A Tool whose holder the opponent's Supporters do not reach, when the holder passes the
        # row's filter (Leafy Camo Poncho: a Pokémon VSTAR or VMAX): the filter, -1 for none.
        proof = np.full(n, -1, np.int32)
        for d, r in zip(*np.nonzero(rows & (c["effects.op"] == OP["prevent_supporter_effects"])),
                        strict=True):  # fmt: skip
            proof[d] = c["effects.card_filter"][d, r]
        self.supporter_proof_filter = jnp.asarray(proof)
        # An Ability whose rows run when its card evolves a Pokémon from the hand; one whose rows
        # run when its card is put onto the Bench from the hand in its owner's turn.
        self.on_evolve = jnp.asarray(has_ability & (activation == 2))
        self.on_bench = jnp.asarray(has_ability & (activation == 3))
        # The attacks that copy another (Genome Hacking), which a copy can't choose: [N, 4].
        copies = np.zeros((n, len(WHERE)), bool)
        for d, r in zip(*np.nonzero(rows & (c["effects.op"] == OP["copy_attack"])), strict=True):
            copies[d, c["effects.where"][d, r]] = True
        self.copies_attack = jnp.asarray(copies[:, :4])
        # An Ability's first row (-1 none): what judges whether it could do anything now.
        first_ability = np.full(n, -1, np.int32)
        for d in range(n):
            on = np.nonzero(rows[d] & (c["effects.where"][d] == WHERE_ABILITY))[0]
            first_ability[d] = on[0] if len(on) else -1
        self.ability_first_row = jnp.asarray(first_ability)
        # A Tera Pokémon: no damage from attacks while on the Bench (its rule text).
        self.is_tera = jnp.asarray((c["tags"].astype(np.int32) >> TAGS.index("tera") & 1) == 1)
        # An activated Ability's use limits, from its rows: once a turn per Pokémon when a row
        # says ``once_per_turn`` (else as often as the player likes: Baxcalibur's Super Cold), and
        # only from the Active Spot when a row's condition is ``self_active`` (Chien-Pao ex).
        ability_rows = rows & (c["effects.where"] == WHERE_ABILITY)
        once = (c["effects.flags"].astype(np.int32) & FLAG["once_per_turn"]) != 0
        self.ability_once = jnp.asarray(np.any(ability_rows & once, axis=1))
        active_only = c["effects.condition"] == CONDITION["self_active"]
        self.ability_active_only = jnp.asarray(np.any(ability_rows & active_only, axis=1))
        # One use a turn among the player's Pokémon whose Ability has the same name
        # (``one_by_name``: Pidgeot ex's Quick Search): the name's index in the state's
        # ``abilities_used_by_name`` (-1 for the others).
        by_name = np.any(ability_rows & ((c["effects.flags"].astype(np.int32)
                                          & FLAG["one_by_name"]) != 0), axis=1)  # fmt: skip
        names = [self.cards.definition(i)["abilities"][0]["name"] if by_name[d] else ""
                 for d, i in enumerate(self.cards.ids)]  # fmt: skip
        shared = sorted(set(names) - {""})
        self.ability_name_slot = jnp.asarray(
            np.asarray([shared.index(x) if x else -1 for x in names], np.int32)
        )
        self.num_shared_abilities = max(len(shared), 1)
        # Passive HP bonus (Orthworm): amount while units of a type >= a minimum.
        bonus = np.zeros((n, 3), np.int32)
        for d in range(n):
            for r in range(int(c["effects.num_rows"][d])):
                if c["effects.op"][d, r] == OP["hp_bonus"]:
                    bonus[d] = (c["effects.amount"][d, r], c["effects.energy_type"][d, r],
                                c["effects.condition_value"][d, r])  # fmt: skip
        self.hp_bonus = jnp.asarray(bonus)
        # A Pokémon Tool's rows, read while it is attached (cards.TOOL_CONDITIONS): HP for any
        # holder, HP for a Basic holder, damage to the opponent's Active always, damage while
        # its player is behind on Prize cards. float32-summed per slot in rules.slot_view.
        tool = np.zeros((n, 4), np.int32)
        for d in range(n):
            if kind[d] != KINDS.index("tool"):
                continue
            for r in range(int(c["effects.num_rows"][d])):
                condition = CONDITIONS[int(c["effects.condition"][d, r])]
                attached = c["effects.where"][d, r] == WHERE.index("attached")
                if not attached or c["effects.op"][d, r] not in (
                    OP["hp_bonus"],
                    OP["extra_damage"],
                ):
                    continue  # the rows of a Tool's attack; its end-of-turn discard
                if c["effects.op"][d, r] == OP["hp_bonus"]:
                    column = 1 if condition == "self_basic" else 0
                else:
                    column = 3 if condition == "behind_on_prizes" else 2
                tool[d, column] += int(c["effects.amount"][d, r])
        self.tool_table = jnp.asarray(tool)
        # A Tool discarded at the end of its owner's turn (Technical Machines).
        self.discard_at_turn_end = jnp.asarray(
            np.any(rows & (c["effects.where"] == WHERE.index("attached"))
                   & (c["effects.op"] == OP["discard_at_end_of_turn"]), axis=1)
        )  # fmt: skip
        # What an activated Ability needs in the hand (filter, type, count): the cards its cost
        # discards (Revavroom) or the card it attaches (Baxcalibur), from its first such row.
        cost = np.zeros((n, 3), np.int32)
        from_hand = (OP["discard_from_hand_cost"], OP["hand_attach_energy"])
        for d in range(n):
            for r in range(int(c["effects.num_rows"][d])):
                if c["effects.where"][d, r] == WHERE_ABILITY and c["effects.op"][d, r] in from_hand:
                    cost[d] = (c["effects.card_filter"][d, r], c["effects.energy_type"][d, r],
                               max(int(c["effects.count"][d, r]), 1))  # fmt: skip
                    break
        self.ability_cost = jnp.asarray(cost)
        # A Stadium in play: whether it has an effect to use (Artazon) and its passive Retreat
        # Cost change (Beach Court: 1 less for Basic Pokémon), read by rules.retreat_costs.
        stadium_rows = rows & (c["effects.where"] == WHERE_STADIUM)
        passive = c["effects.op"] == OP["retreat_cost_less"]
        self.stadium_usable = jnp.asarray(np.any(stadium_rows & ~passive, axis=1))
        less = np.where(stadium_rows & passive, c["effects.amount"], 0).sum(axis=1)
        self.stadium_retreat_less = jnp.asarray(less.astype(np.int32))
        self.stadium_retreat_filter = jnp.asarray(
            np.where(stadium_rows & passive, c["effects.card_filter"], 0)
            .max(axis=1)
            .astype(np.int32)
        )
        # Passive Abilities read by the rules: protection from the effects of the opponent's
        # attacks (Charmeleon's Flare Veil: rows.prevent_attack_effects), and a Retreat Cost
        # taken off while amount of energy_type Energy is attached (Moltres's Flare Float):
        # (less, energy_type, minimum) per definition.
        passive = (c["abilities.num_rows"] > 0) & (activation == 1)
        on_ability = rows & (c["effects.where"] == WHERE_ABILITY) & passive[:, None]
        self.always_protected = jnp.asarray(
            np.any(on_ability & (c["effects.op"] == OP["prevent_attack_effects"]), axis=1)
        )
        free = np.zeros((n, 3), np.int32)
        for d, r in zip(*np.nonzero(on_ability & (c["effects.op"] == OP["retreat_cost_less"])),
                        strict=True):  # fmt: skip
            free[d] = (c["effects.amount"][d, r], c["effects.energy_type"][d, r],
                       max(int(c["effects.condition_value"][d, r]), 1))  # fmt: skip
        self.ability_retreat_less = jnp.asarray(free)
        # A passive damage aura (Regieleki VMAX's Transistor): amount, and the card filter and
        # type of the player's attackers it helps, per definition (0: none).
        aura = np.zeros((n, 3), np.int32)
        for d, r in zip(*np.nonzero(on_ability & (c["effects.op"] == OP["extra_damage_aura"])),
                        strict=True):  # fmt: skip
            aura[d] = (c["effects.amount"][d, r], c["effects.card_filter"][d, r],
                       c["effects.energy_type"][d, r])  # fmt: skip
        self.damage_aura = jnp.asarray(aura)
        # Damage taken less during the opponent's next turn after the attack (Regieleki V's
        # Lightning Wall), per definition: the amount of its row (the card's one such row).
        reduce = np.where(rows & (c["effects.op"] == OP["reduce_damage_next_turn"]),
                          c["effects.amount"], 0)  # fmt: skip
        self.damage_reduction = jnp.asarray(reduce.max(axis=1).astype(np.int32))
        self.damage_mode = jnp.asarray(c["attacks.damage_mode"].astype(np.int32))
        # Whether a Trainer can be played at all: its first row must be able to do something.
        first_op = np.where(c["effects.num_rows"] > 0, c["effects.op"][:, 0], -1)
        self.trainer_first_op = jnp.asarray(first_op.astype(np.int32))

    # -- queries ---------------------------------------------------------------------------------

    def candy_targets(self, state, player) -> jax.Array:
        """bool[N, 6]: the player's slots a Stage 2 of each definition can go on by Rare Candy:
        a Basic it evolves from through its Stage 1 (``candy_onto``), not put into play this turn,
        and not on either player's first turn (the evolution rules)."""
        view = self.slot_view(state)
        top = view["definition"][player]  # [6]
        turn = state.board.turn_number.astype(jnp.int32)
        ready = view["occupied"][player] & (state.since_turn[player].astype(jnp.int32) < turn)
        return self.candy_onto[:, top] & ready[None, :] & (turn > 2)

    def deck_evolve_targets(self, state, player) -> jax.Array:
        """bool[N, 6]: the player's Benched Pokémon a card of each definition can evolve by
        ``evolve_from_deck`` (TM: Evolution): one it evolves from, not yet evolved by this effect
        (``effect_evolved``: each chosen Pokémon evolves once). An effect that evolves ignores the
        limits on evolving from the hand (first turn, new this turn)."""
        view = self.slot_view(state)
        top = view["definition"][player]  # [6]
        bench = view["occupied"][player] & (jnp.arange(6) > 0) & ~state.effect_evolved
        return self.evolves_onto[:, top] & bench[None, :]

    def supporter_proof_slots(self, state) -> jax.Array:
        """bool[2, 6]: the Pokémon the effects of the opponent's Supporters do not reach: those
        holding a Tool that says so and passing its filter (Leafy Camo Poncho on a Pokémon VSTAR
        or VMAX)."""
        view = self.slot_view(state)
        want = self.supporter_proof_filter[view["tool_definition"]]  # [2, 6]
        passes = self.filter_match[jnp.maximum(want, 0), view["definition"]]
        return view["occupied"] & (want >= 0) & passes

    def protected_slots(self, state) -> jax.Array:
        """bool[2, 6]: the Pokémon the effects of the opponent's attacks do not reach: for a time
        (``prevent_attack_effects``, until ``protected_turn``) or by a passive Ability
        (Charmeleon's Flare Veil)."""
        turn = state.board.turn_number.astype(jnp.int16)
        view = self.slot_view(state)
        return in_force(state.protected_turn, turn) | (
            view["occupied"] & self.always_protected[view["definition"]]
        )

    def card_matches(self, definition, filter_, energy_type, max_hp=0) -> jax.Array:
        """Whether cards of ``definition`` pass a row's card filter, Energy type and HP bound."""
        hp_ok = (max_hp == 0) | (self.hp[definition] <= max_hp)
        return (
            self.filter_match[filter_, definition]
            & self.type_match[energy_type, definition]
            & hp_ok
        )

    def zone_definition_counts(self, board, zone, filter_, energy_type, max_hp=0) -> jax.Array:
        """Cards of each definition in ``zone`` matching a row's filters. Returns int32[N]."""
        definition = board.definition.astype(jnp.int32)
        ok = (board.zone == zone) & self.card_matches(definition, filter_, energy_type, max_hp)
        return zones.definition_counts(board, ok, len(self.cards))

    def _row_cols(self, definition, row) -> dict[str, jax.Array]:
        d, r = jnp.maximum(definition, 0), jnp.clip(row, 0, MAX_EFFECTS - 1)
        return {k: v[d, r] for k, v in self.row.items()}

    def _source_zone(self, player, source, slot) -> jax.Array:
        from tcgjax.games.pokemon import rules as R

        zone = jnp.stack(
            [
                jnp.int32(-1),
                R.zone_of("deck", player),
                R.zone_of("discard", player),
                R.slot_zone(player, jnp.maximum(slot, 0)),
                R.zone_of("looking", player),
                R.zone_of("hand", player),
                jnp.int32(R.STADIUM_ZONE),
            ]
        )
        return zone[source]

    def slot_targets(
        self, state, player, target, target_type, op, energy_type=0, amount=0
    ) -> jax.Array:
        """bool[12]: the Pokémon ``player`` may choose for a row (their slots 0-5, then the
        opponent's): by ``target``, the Pokémon's type, and per op (``heal`` needs damage,
        ``gust`` and ``move_counters`` by an attack a Pokémon not protected from attack effects,
        ``move_counters`` damage on the player's Pokémon to move, ``discard_energy_for_damage``
        Energy of ``energy_type`` attached, ``discard_attach_energy`` with ``amount`` a Pokémon
        those counters would not Knock Out)."""
        view = self.slot_view(state)
        occupied = jnp.concatenate([view["occupied"][player], view["occupied"][1 - player]])
        types = jnp.concatenate([view["definition"][player], view["definition"][1 - player]])
        type_ok = (target_type == 0) | (self.type[types] == target_type)
        k = jnp.arange(12)
        own, bench = k < 6, (k % 6) > 0
        by_target = jnp.stack(
            [
                jnp.zeros(12, bool),  # none
                jnp.zeros(12, bool),  # self: no choice
                jnp.zeros(12, bool),  # opponent_active: no choice
                jnp.zeros(12, bool),  # own_active: no choice
                own & bench,  # own_bench
                own,  # own_pokemon
                ~own & bench,  # opponent_bench
                ~own,  # opponent_pokemon
            ]
        )[target]
        damage = jnp.concatenate([state.damage[player], state.damage[1 - player]])
        shielded = self.protected_slots(state)
        protected = jnp.concatenate([shielded[player], shielded[1 - player]])
        units = jnp.concatenate([view["units"][player], view["units"][1 - player]])  # [12, 11]
        typed = jnp.where(energy_type > 0, units[:, jnp.maximum(energy_type - 1, 0)],
                          jnp.sum(units, axis=1))  # fmt: skip
        per_op = jnp.where(op == OP["heal"], damage > 0, True)
        # The protection stops attack effects only (Boss's Orders still gusts the Pokémon); Leafy
        # Camo Poncho stops the opponent's Supporters only (Boss's Orders).
        moves = op == OP["move_counters"]
        per_op &= jnp.where(
            ((op == OP["gust"]) | moves) & (state.effect_kind == ATTACK), ~protected, True
        )
        per_op &= ~moves | jnp.any(view["occupied"][player] & (state.damage[player] > 0))
        hp_left = jnp.concatenate([view["hp"][player], view["hp"][1 - player]]) - damage
        per_op &= jnp.where((op == OP["discard_attach_energy"]) & (amount > 0), hp_left > amount,
                            True)  # fmt: skip
        source = state.board.definition[jnp.maximum(state.effect_card, 0)].astype(jnp.int32)
        by_supporter = (state.effect_kind == TRAINER) & self.is_supporter[source]
        proof = self.supporter_proof_slots(state)
        proof = jnp.concatenate([proof[player], proof[1 - player]])
        per_op &= jnp.where(by_supporter & (jnp.arange(12) >= 6), ~proof, True)
        per_op &= jnp.where(op == OP["discard_energy_for_damage"], typed > 0, True)
        return occupied & type_ok & by_target & per_op

    def selection_options(self, state):
        """What the pending selection allows: ``(cards int32[N] per definition, slots bool[12],
        done bool[])``."""
        sel = state.selection
        player = state.effect_player.astype(jnp.int32)
        d = state.board.definition[jnp.maximum(sel.card.astype(jnp.int32), 0)].astype(jnp.int32)
        col = self._row_cols(d, sel.row.astype(jnp.int32))
        op = col["op"]
        source = jnp.asarray(_SOURCE)[op]
        two_step = jnp.asarray(_TWO_STEP)[op]
        # A two-step choice takes the card from the Pokémon picked first (``picked`` < 6).
        from_slot = jnp.where(two_step, jnp.clip(sel.picked.astype(jnp.int32), 0, 5), sel.slot)
        zone = self._source_zone(player, source, from_slot.astype(jnp.int32))
        board = state.board
        stage = sel.stage.astype(jnp.int32)
        # The cards there the row's filter passes (Energy attached to a Pokémon: any Energy
        # unless the row names a type).
        passes = self.search_filters.matches(
            d, jnp.clip(sel.row.astype(jnp.int32), 0, MAX_EFFECTS - 1), board.definition
        )
        matching = zones.definition_counts(board, (board.zone == zone) & passes, len(self.cards))
        looking = self.zone_definition_counts(
            board, zone, CARD_FILTERS.index("any"), 0
        )  # any card, for the ordering stage
        cards = jnp.select(
            [(stage == PICK) & ~two_step, stage == FROM, stage == ORDER],
            [matching, matching, looking],
            0,
        )
        # Rare Candy: a Stage 2 of the hand that can go on one of the player's Basic Pokémon now;
        # TM: Evolution: a card of the deck that evolves one of their Benched Pokémon.
        candy = op == OP["rare_candy"]
        evolving = candy | (op == OP["evolve_from_deck"])
        evolve_slots = jnp.where(
            candy, self.candy_targets(state, player), self.deck_evolve_targets(state, player)
        )  # [N, 6]
        cards = jnp.where(evolving, jnp.where(jnp.any(evolve_slots, axis=1), cards, 0), cards)
        cards = jnp.where(sel.pending() & jnp.asarray(_IS_CARD_OP)[op], cards, 0)
        # A bench search needs room; the order stage needs two cards or more (one goes alone).
        from tcgjax.games.pokemon import rules as R

        bench_room = jnp.sum(~self.slot_view(state)["occupied"][player, 1:])
        to_bench = jnp.asarray(_DESTINATION)[op] == DESTINATIONS.index("bench")
        cards = jnp.where(to_bench & (bench_room <= 0), 0, cards)
        slots = self.slot_targets(
            state, player, col["target"], col["target_type"], op, col["energy_type"], col["amount"]
        )
        # Damage to several Pokémon (Moonlight Shuriken): each a different one.
        slots &= ~((op == OP["bench_damage"]) & (jnp.arange(12) == sel.picked))
        # Energy for a Pokémon to choose later needs one to exist.
        dest = jnp.asarray(_DESTINATION)[op]
        place_later = (
            (dest == DESTINATIONS.index("attach")) | (dest == DESTINATIONS.index("evolve"))
        ) & (col["target"] != TARGET["self"])
        cards = jnp.where(place_later & (stage == PICK) & ~jnp.any(slots), 0, cards)
        # The Pokémon the picked card evolves (the PLACE stage of Rare Candy and TM: Evolution).
        picked_def = board.definition[jnp.maximum(sel.picked.astype(jnp.int32), 0)]
        evolve_place = jnp.concatenate(
            [evolve_slots[picked_def.astype(jnp.int32)], jnp.zeros(6, bool)]
        )
        slots = jnp.where(evolving & (stage == PLACE), evolve_place, slots)
        slot_stage = (jnp.asarray(_IS_SLOT_OP)[op] & (stage == PICK)) | (stage == PLACE)
        slots = slots & slot_stage & sel.pending()
        # "Up to": a hidden search, a look for a kind of card, a row marked ``optional``.
        up_to = (
            jnp.asarray(_UP_TO)[op]
            | ((op == OP["look_take"]) & (col["card_filter"] != CARD_FILTERS.index("any")))
            | ((col["flags"] & FLAG["optional"]) != 0)
        )
        done = sel.pending() & (stage == PICK) & up_to
        del R
        return cards, slots, done

    def attack_options(self, state) -> jax.Array:
        """bool[4]: the attacks of the opponent's Active Pokémon (``attack[i]``, its own then its
        Tool's) a pending ATTACK-stage choice may name: any it has for ``lock_attack`` (none when
        it is protected from attack effects), any but one that copies for ``copy_attack``."""
        sel = state.selection
        player = state.effect_player.astype(jnp.int32)
        opponent = jnp.maximum(1 - player, 0) % 2
        d = state.board.definition[jnp.maximum(sel.card.astype(jnp.int32), 0)].astype(jnp.int32)
        op = self._row_cols(d, sel.row.astype(jnp.int32))["op"]
        view = self.slot_view(state)
        definition, index, available = self.attack_sources(view, opponent)
        copyable = ~self.copies_attack[definition, jnp.clip(index, 0, 3)]
        protected = self.protected_slots(state)[opponent, 0]
        ok = available & view["occupied"][opponent, 0]
        ok &= jnp.where(op == OP["lock_attack"], ~protected, copyable)
        return ok & sel.pending() & (sel.stage == ATTACK_STAGE)

    # -- activations -----------------------------------------------------------------------------

    def _activate(self, state, kind, player, card, slot, where):
        """Queue ``card``'s rows for ``where`` and set the activation context."""
        d = state.board.definition[card].astype(jnp.int32)
        rows = jnp.arange(MAX_EFFECTS)
        valid = self.row_where[d] == where
        queue = state.queue.append(
            jnp.full(MAX_EFFECTS, card), rows, jnp.full(MAX_EFFECTS, slot), valid
        )
        return state.replace(
            queue=queue,
            effect_kind=jnp.int8(kind),
            effect_player=jnp.asarray(player, jnp.int8),
            effect_card=jnp.asarray(card, jnp.int16),
            effect_slot=jnp.asarray(slot, jnp.int8),
            coin=jnp.int8(-1),
            previous=jnp.bool_(True),
            bonus_damage=jnp.int16(0),
            does_nothing=jnp.bool_(False),
            damage_dealt=jnp.bool_(False),
        )

    def _run(self, state, key):
        """Resolve queued rows until a choice is pending or the queue is empty; then finish the
        activation. At most ``MAX_EFFECTS + 1`` micro-steps, one loop body traced once."""

        def micro_step(i, state):
            k = jax.random.fold_in(key, i)
            idle = state.selection.pending() | (state.winner >= 0)
            resolve = ~idle & ~state.queue.is_empty()
            state = when_some(resolve, self._resolve, state, k)
            finish = (
                ~state.selection.pending()
                & (state.winner < 0)
                & state.queue.is_empty()
                & (state.effect_kind != NO_EFFECT)
            )
            return when_some(finish, self._finish, state)

        return jax.lax.fori_loop(0, MAX_EFFECTS + 1, micro_step, state)

    def _finish(self, state):
        """The queue is empty: a Trainer goes to the discard pile; an attack deals its damage if
        it has not, its Knock Outs follow and the turn ends."""
        from tcgjax.games.pokemon import rules as R

        kind = state.effect_kind
        player = state.effect_player.astype(jnp.int32)
        board = zones.move_all(
            self.layout, state.board, 2 * len(R.PLAYER_ZONES), R.zone_of("discard", player)
        ).board  # the Trainer (processing is empty otherwise)
        state = state.replace(board=board)
        attack = kind == ATTACK
        state = when_any(attack, self._deal_attack_damage, state)
        keep = ("ability_used", "cannot_attack_turn", "protected_turn", "reduced_turn",
                "locked_attack", "locked_turn", "turn_ending")  # fmt: skip
        evolved, evolved_slot = state.evolved_card.astype(jnp.int32), state.evolved_slot
        state = state.replace(
            **{k: v for k, v in effect_fields(R.NUM_SLOTS).items() if k not in keep}
        )
        # A Stage 2 Rare Candy put into play with an on-evolve Ability: its rows now.
        d = state.board.definition[jnp.maximum(evolved, 0)].astype(jnp.int32)
        triggered = self._activate(
            state, ABILITY, player, jnp.maximum(evolved, 0), evolved_slot, WHERE_ABILITY
        )
        state = tree_where((evolved >= 0) & self.on_evolve[d], triggered, state)
        ended = self._knock_out(state, by_attack=True).replace(
            promote_then=jnp.int8(R.THEN_CHECKUP), turn_ending=jnp.bool_(True)
        )
        return tree_where(attack, ended, state)

    def _deal_attack_damage(self, state):
        """Deal the attack's damage to the Defending Pokémon once (printed + modifiers)."""
        from tcgjax.games.pokemon import rules as R

        player = state.effect_player.astype(jnp.int32)
        # The attack is a row of the activation's card: the Pokémon's, or its Tool's (TM).
        source = state.board.definition[jnp.maximum(state.effect_card, 0)].astype(jnp.int32)
        i = jnp.maximum(state.attack_index.astype(jnp.int32), 0)
        printed = self.attack_damage[source, i]
        mode = self.damage_mode[source, i]
        bonus = state.bonus_damage.astype(jnp.int32)
        # plain / plus: printed + modifiers; times: the rows give the whole amount; minus: less.
        total = jnp.select([mode == 2, mode == 3], [bonus, printed - bonus], printed + bonus)
        total = jnp.where(state.does_nothing, 0, jnp.maximum(total, 0))
        dealt = self._deal(state, player, total, 1 - player, 0, weakness=True)
        skip = state.damage_dealt | state.does_nothing
        del R
        return tree_where(skip, state, dealt).replace(damage_dealt=jnp.bool_(True))

    def _deal(self, state, attacker_player, amount, player, slot, *, weakness):
        """Put an attack's ``amount`` of damage on ``player``'s ``slot``: the attacker's special
        Energy modifiers when above 0, then Weakness and Resistance (Active only, R9), floor 0."""
        view = self.slot_view(state)
        attacker = view["definition"][attacker_player, 0]
        defender = view["definition"][player, slot]
        # A Tool's bonus to the opponent's Active Pokémon (Vitality Band; Defiance Band while
        # the attacker's player has more Prize cards left), before Weakness and Resistance.
        from tcgjax.games.pokemon import rules as R

        prizes = jnp.stack(
            [zones.zone_count(state.board, R.zone_of("prizes", p)) for p in range(2)]
        )
        behind = prizes[attacker_player] > prizes[1 - attacker_player]
        tool_bonus = view["tool_damage"][attacker_player, 0] + jnp.where(
            behind, view["tool_damage_behind"][attacker_player, 0], 0
        )
        # Passive auras of the attacker's player's Pokémon in play (Regieleki VMAX's Transistor:
        # +30 for a Basic Lightning attacker), each copy counting.
        helpers = view["definition"][attacker_player]  # [6]
        aura_amount, aura_filter, aura_type = (self.damage_aura[helpers, i] for i in range(3))
        helped = self.filter_match[aura_filter, attacker] & self.type_match[aura_type, attacker]
        aura = jnp.sum(jnp.where(view["occupied"][attacker_player] & helped, aura_amount, 0))
        modifier = view["damage_modifier"][attacker_player, 0]
        to_active = (slot == 0) & (player != attacker_player)
        modifier = modifier + jnp.where(to_active, tool_bonus + aura, 0)
        amount = jnp.where(amount > 0, amount + modifier, 0)
        applies = weakness & (slot == 0)
        weak = (
            applies
            & (self.weakness[defender] == self.type[attacker])
            & (self.weakness[defender] > 0)
        )
        amount = jnp.where(weak, amount * self.weakness_multiplier[defender], amount)
        resists = (
            applies
            & (self.resistance[defender] == self.type[attacker])
            & (self.resistance[defender] > 0)
        )
        amount = jnp.maximum(
            jnp.where(resists, amount + self.resistance_value[defender], amount), 0
        )
        # Less damage during the turn after its own attack (Lightning Wall), after W/R.
        turn = state.board.turn_number.astype(jnp.int16)
        reduced = in_force(state.reduced_turn[player, slot], turn)
        amount = jnp.maximum(amount - jnp.where(reduced, self.damage_reduction[defender], 0), 0)
        occupied = view["occupied"][player, slot]
        # A Tera Pokémon on the Bench takes no damage from attacks (Charizard ex).
        occupied &= ~((slot > 0) & self.is_tera[defender])
        return state.replace(
            damage=state.damage.at[player, slot].add(
                jnp.where(occupied, amount, 0).astype(jnp.int16)
            )
        )

    # -- one row ---------------------------------------------------------------------------------

    def _resolve(self, state, key):
        """Pop the first queued row and execute it (a table of selects, not a branch per card)."""
        card, row, slot = state.queue.head()
        state = state.replace(queue=state.queue.pop())
        d = state.board.definition[jnp.maximum(card, 0)].astype(jnp.int32)
        col = self._row_cols(d, row)
        op = col["op"]
        player = state.effect_player.astype(jnp.int32)
        # The gates, all of which must hold: one truth vector over GATES, masked by the row.
        # One coin per activation, flipped by the first row that reads it once the row's other
        # gates hold ("if you do, flip a coin": no flip when it was not done).
        gates = col["gates"]  # bool[G], GATES order
        holds = dict(condition=self._condition(state, col, player, slot), previous=state.previous)

        def truth(coin):  # bool[G]: which gates hold with this coin
            return jnp.stack([{**holds, "heads": coin == 1, "tails": coin == 0}[g] for g in GATES])

        coin_gate = jnp.asarray(_IS_COIN_GATE)
        others_hold = jnp.all(truth(state.coin) | ~gates | coin_gate)
        flip = jax.random.bernoulli(key).astype(jnp.int8)
        first_flip = jnp.any(gates & coin_gate) & others_hold & (state.coin < 0)
        coin = jnp.where(first_flip, flip, state.coin)
        state = state.replace(coin=coin)
        passes = jnp.all(truth(coin) | ~gates) & ~state.does_nothing
        # Any op other than a damage modifier comes after the attack's damage (card texts).
        deal_first = (state.effect_kind == ATTACK) & ~jnp.asarray(_IS_MODIFIER)[op] & passes
        state = when_any(deal_first, self._deal_attack_damage, state)
        acted = self._execute(state, col, op, card, row, slot, player, key)
        return tree_where(passes, acted, state.replace(previous=jnp.bool_(False)))

    def _condition(self, state, col, player, slot):
        from tcgjax.games.pokemon import rules as R

        hands = jnp.stack([zones.zone_count(state.board, R.zone_of("hand", p)) for p in range(2)])
        units = self.slot_view(state)["units"][player, jnp.maximum(slot, 0)]
        typed = jnp.where(col["energy_type"] > 0, units[jnp.maximum(col["energy_type"] - 1, 0)],
                          jnp.sum(units))  # fmt: skip
        return jnp.select(
            [
                col["condition"] == CONDITION["own_ko_by_attack_last_turn"],
                col["condition"] == CONDITION["hand_sizes_equal"],
                col["condition"] == CONDITION["min_energy_on_self"],
                col["condition"] == CONDITION["self_active"],
                col["condition"] == CONDITION["opponent_active_evolution"],
                col["condition"] == CONDITION["self_pokemon_v"],
            ],
            [
                state.ko_last_turn[player],
                hands[0] == hands[1],
                typed >= col["condition_value"],
                slot == 0,
                self.is_evolution[self.slot_view(state)["definition"][1 - player, 0]],
                self.is_pokemon_v[
                    self.slot_view(state)["definition"][player, jnp.maximum(slot, 0)]
                ],
            ],
            True,
        )

    def _execute(self, state, col, op, card, row, slot, player, key):
        """The row's op. Immediate ops act here; choices open the ``select`` phase."""
        from tcgjax.games.pokemon import rules as R

        layout, board = self.layout, state.board
        opponent = 1 - player
        turn = board.turn_number.astype(jnp.int16)
        view = self.slot_view(state)
        amount, count = col["amount"], col["count"]
        own_slot = jnp.maximum(slot, 0)
        # Damage modifiers.
        counters = state.damage[opponent, 0].astype(jnp.int32) // 10
        units = view["units"][player, own_slot]
        typed_units = jnp.where(
            col["energy_type"] > 0, units[jnp.maximum(col["energy_type"] - 1, 0)], jnp.sum(units)
        )
        # Several coins at once (Azumarill's Slam: 2 coins, 100 per heads), from their own key.
        coins = jax.random.bernoulli(jax.random.fold_in(key, 3), shape=(10,))
        heads = jnp.sum(coins & (jnp.arange(10) < count))
        own_counters = state.damage[player, own_slot].astype(jnp.int32) // 10
        taken = R.PRIZES - zones.zone_count(state.board, R.zone_of("prizes", opponent))
        bonus = jnp.select(
            [
                op == OP["extra_damage"],
                op == OP["extra_damage_per_counter"],
                op == OP["extra_damage_per_energy"],
                op == OP["extra_damage_per_heads"],
                op == OP["extra_damage_per_own_counter"],
                op == OP["extra_damage_per_prize_taken"],
            ],
            [amount, for_each(amount, counters), for_each(amount, typed_units),
             for_each(amount, heads), for_each(amount, own_counters), for_each(amount, taken)],
            0,
        )  # fmt: skip
        state = state.replace(
            bonus_damage=(state.bonus_damage + bonus).astype(jnp.int16),
            does_nothing=state.does_nothing | (op == OP["attack_does_nothing"]),
        )
        # Damage to the Defending Pokémon (Eelektross after its gust).
        no_wr = (col["flags"] & FLAG["no_weakness_resistance"]) != 0
        damaged = self._deal(state, player, amount, opponent, 0, weakness=~no_wr)
        state = tree_where(op == OP["damage"], damaged, state)
        # A Special Condition on the Defending Pokémon, unless it is protected.
        status = jnp.asarray(_STATUS_ROTATED)[col["status"]]
        protected = self.protected_slots(state)[opponent, 0]
        give = (op == OP["apply_status"]) & ~protected
        poison = give & (col["status"] == STATUSES.index("poisoned"))
        burn = give & (col["status"] == STATUSES.index("burned"))
        rotate = give & (status > 0)
        state = state.replace(
            rotated=state.rotated.at[opponent].set(
                jnp.where(rotate, status, state.rotated[opponent]).astype(jnp.int8)
            ),
            poisoned=state.poisoned.at[opponent].set(state.poisoned[opponent] | poison),
            burned=state.burned.at[opponent].set(state.burned[opponent] | burn),
        )
        # Durations on this Pokémon: the field the op sets, to the last turn it lasts (the
        # player's next turn, or the opponent's next turn; an attack's player is the turn player).
        for field, name, duration in (
            ("cannot_attack_turn", "cannot_attack_next_turn", CONTROLLERS_NEXT_TURN),
            ("protected_turn", "prevent_attack_effects", OPPONENTS_NEXT_TURN),
            ("reduced_turn", "reduce_damage_next_turn", OPPONENTS_NEXT_TURN),
        ):
            rows = getattr(state, field)
            until = jnp.where(
                op == OP[name], last_turn(duration, turn, True), rows[player, own_slot]
            )
            state = state.replace(**{field: rows.at[player, own_slot].set(until.astype(jnp.int16))})
        # Healing the attacker itself needs no choice (Marill's Bubble Drain).
        heal_self = (op == OP["heal"]) & (col["target"] == TARGET["self"])
        state = state.replace(
            damage=state.damage.at[player, own_slot].set(
                jnp.where(
                    heal_self,
                    jnp.maximum(state.damage[player, own_slot] - amount, 0),
                    state.damage[player, own_slot],
                ).astype(jnp.int16)
            )
        )
        # The attacker recovers from every Special Condition (Miracle Force).
        cure = (op == OP["cure_self"]) & (own_slot == 0)
        state = state.replace(
            rotated=state.rotated.at[player].set(jnp.where(cure, 0, state.rotated[player])),
            poisoned=state.poisoned.at[player].set(state.poisoned[player] & ~cure),
            burned=state.burned.at[player].set(state.burned[player] & ~cure),
        )
        # This Pokémon and its cards into the deck, shuffled (Aqua Return); like a Knock Out
        # without Prize cards, the empty Active is promoted into after the attack.
        # Rare: only the games resolving it pay for the move and the shuffle (``when_any``).
        state = when_any(
            op == OP["shuffle_self_into_deck"],
            lambda s: self._shuffle_into_deck(s, player, own_slot, jax.random.fold_in(key, 5)),
            state,
        )
        # Drawing.
        deck = zones.zone_count(state.board, R.zone_of("deck", player))
        hand = zones.zone_count(state.board, R.zone_of("hand", player))
        opp_hand = zones.zone_count(state.board, R.zone_of("hand", opponent))
        until = jnp.where(count > 0, count, opp_hand)
        draws = jnp.select(
            [op == OP["draw"], op == OP["draw_until"]],
            [count, jnp.maximum(until - hand, 0)],
            0,
        )
        drawn = zones.draw_n(
            layout, state.board, R.zone_of("deck", player), R.zone_of("hand", player),
            jnp.minimum(draws, deck),
        ).board  # fmt: skip
        state = state.replace(board=drawn)
        key, shuffle_key = jax.random.split(jax.random.fold_in(key, 2))
        # Youngster: the hand into the deck, shuffle, draw.
        refill = op == OP["shuffle_hand_draw"]
        shuffled = zones.move_all(
            layout, state.board, R.zone_of("hand", player), R.zone_of("deck", player)
        ).board
        shuffled = zones.shuffle(layout, shuffled, R.zone_of("deck", player), shuffle_key).board
        left = zones.zone_count(shuffled, R.zone_of("deck", player))
        shuffled = zones.draw_n(
            layout, shuffled, R.zone_of("deck", player), R.zone_of("hand", player),
            jnp.minimum(count, left),
        ).board  # fmt: skip
        state = state.replace(board=tree_where(refill, shuffled, state.board))
        # Professor's Research: the hand to the discard pile, then draw. Iono: both hands.
        state = when_any(
            op == OP["discard_hand_draw"],
            lambda s: self._discard_hand_draw(s, player, count),
            state,
        )
        state = when_any(
            op == OP["hands_to_bottom_draw_prizes"],
            lambda s: self._hands_to_bottom_draw_prizes(s, jax.random.fold_in(key, 4)),
            state,
        )
        # Looking at the top cards: set them aside in the player's looking zone.
        looks = (op == OP["look_take"]) | (op == OP["look_attach_energy"])
        deck = zones.zone_count(state.board, R.zone_of("deck", player))
        looked = zones.draw_n(
            layout, state.board, R.zone_of("deck", player), R.zone_of("looking", player),
            jnp.where(looks, jnp.minimum(col["look"], deck), 0),
        ).board  # fmt: skip
        state = state.replace(board=looked)
        # The Stadium in play to its owner's discard pile (Charmander's Blazing Destruction).
        stadium = zones.top_card(state.board, R.STADIUM_ZONE)
        owner = state.board.owner[jnp.maximum(stadium, 0)].astype(jnp.int32)
        optional = (col["flags"] & FLAG["optional"]) != 0
        discard_stadium = (op == OP["discard_stadium"]) & (stadium >= 0) & ~optional
        moved = zones.move_card(
            layout, state.board, jnp.maximum(stadium, 0), R.zone_of("discard", owner)
        ).board
        state = state.replace(board=tree_where(discard_stadium, moved, state.board))
        key = jax.random.fold_in(key, 1)  # the coin used the key as it came
        # Choices: open the selection; the op is done when it closes.
        # Charmander's discard of the Stadium is no choice; Pidgeot ex's "you may" is one.
        chooses = (
            jnp.asarray(_IS_CARD_OP | _IS_SLOT_OP | _ATTACK_CHOICE)[op]
            & ~heal_self
            & ~((op == OP["discard_stadium"]) & ~optional)
        )
        left = jnp.where(op == OP["look_take"], jnp.minimum(count, col["look"]), count)
        left = jnp.where(jnp.asarray(_IS_SLOT_OP)[op], jnp.maximum(count, 1), left)
        left = jnp.where(jnp.asarray(_TWO_STEP)[op] & (count == 0), NO_LIMIT, left)
        stage = jnp.where(jnp.asarray(_ATTACK_CHOICE)[op], ATTACK_STAGE, PICK)
        opened = state.replace(
            selection=Selection.open(
                card, row, slot, jnp.maximum(left, 1), state.board.phase, stage=stage
            ),
            board=set_turn(state.board, active_player=player, phase=R.PHASE["select"]),
        )
        opened = self._close_if_stuck(opened, key)
        # A row did something; discarding a Stadium needs one in play.
        immediate = state.replace(previous=(op != OP["discard_stadium"]) | discard_stadium)
        return tree_where(chooses, opened, immediate)

    def _shuffle_into_deck(self, state, player, slot, key):
        """The Pokémon in ``slot`` and every card attached to it into its player's deck, which is
        shuffled; the slot's records and the Special Conditions go with it (Aqua Return)."""
        from tcgjax.games.pokemon import rules as R

        deck = R.zone_of("deck", player)
        board = zones.move_all(self.layout, state.board, R.slot_zone(player, slot), deck).board
        board = zones.shuffle(self.layout, board, deck, key).board
        state = self._clear_slot(state.replace(board=board), player, slot)
        return state.replace(
            rotated=state.rotated.at[player].set(0),
            poisoned=state.poisoned.at[player].set(False),
            burned=state.burned.at[player].set(False),
        )

    def _discard_hand_draw(self, state, player, count):
        """Discard the player's hand, then draw ``count`` (as many as the deck holds)."""
        from tcgjax.games.pokemon import rules as R

        hand, deck = R.zone_of("hand", player), R.zone_of("deck", player)
        board = zones.move_all(self.layout, state.board, hand, R.zone_of("discard", player)).board
        left = zones.zone_count(board, deck)
        board = zones.draw_n(self.layout, board, deck, hand, jnp.minimum(count, left)).board
        return state.replace(board=board)

    def _hands_to_bottom_draw_prizes(self, state, key):
        """Iono: each player shuffles their hand and puts it under their deck; if either put a
        card there, each then draws a card for each of their Prize cards left."""
        from tcgjax.games.pokemon import rules as R

        board = state.board
        hands = [R.zone_of("hand", p) for p in range(2)]
        decks = [R.zone_of("deck", p) for p in range(2)]
        moved = (zones.zone_count(board, hands[0]) + zones.zone_count(board, hands[1])) > 0
        for p, k in zip(range(2), jax.random.split(key), strict=True):
            board = zones.shuffle(self.layout, board, hands[p], k).board
            board = zones.move_all_under(self.layout, board, hands[p], decks[p]).board
        for p in range(2):
            prizes = zones.zone_count(board, R.zone_of("prizes", p))
            draws = jnp.where(moved, jnp.minimum(prizes, zones.zone_count(board, decks[p])), 0)
            board = zones.draw_n(self.layout, board, decks[p], hands[p], draws).board
        return state.replace(board=board)

    # -- choices ---------------------------------------------------------------------------------

    def _close_if_stuck(self, state, key):
        """Close the selection when no choice is left (or none is valid)."""
        cards, slots, done = self.selection_options(state)
        stuck = ~jnp.any(cards > 0) & ~jnp.any(slots) & ~jnp.any(self.attack_options(state))
        over = state.selection.left <= 0
        return tree_where(
            state.selection.pending() & (stuck | over), self._close(state, key), state
        )

    def _close(self, state, key):
        """End the selection: the cards looked at go back (shuffled, or to the bottom one by one in
        the player's order), the deck is shuffled if the row says, play resumes."""
        from tcgjax.games.pokemon import rules as R

        sel = state.selection
        player = state.effect_player.astype(jnp.int32)
        d = state.board.definition[jnp.maximum(sel.card.astype(jnp.int32), 0)].astype(jnp.int32)
        col = self._row_cols(d, sel.row.astype(jnp.int32))
        looking, deck = R.zone_of("looking", player), R.zone_of("deck", player)
        rest = zones.zone_count(state.board, looking)
        to_bottom = col["rest"] == RESTS.index("bottom_any_order")
        # Two or more cards to order: the player picks them one by one (the ORDER stage).
        ordering = to_bottom & (rest >= 2) & (sel.stage != ORDER)
        # The last card needs no choice: rest - 1 picks.
        order = state.replace(
            selection=sel.replace(stage=jnp.int8(ORDER), left=(rest - 1).astype(jnp.int8))
        )
        board = state.board
        last = zones.top_card(board, looking)
        bottom = zones.move_card(self.layout, board, jnp.maximum(last, 0), deck, zones.BOTTOM)
        board = tree_where(to_bottom & (rest == 1), bottom.board, board)
        board = zones.move_all(self.layout, board, looking, deck).board
        shuffle = (col["rest"] == RESTS.index("shuffle")) | (
            (col["flags"] & FLAG["shuffle_deck"]) != 0
        )
        board = tree_where(shuffle, zones.shuffle(self.layout, board, deck, key).board, board)
        closed = state.replace(
            board=set_turn(board, active_player=player, phase=sel.resume),
            selection=Selection.none(),
            previous=sel.picked >= 0,  # the row did something: a choice was made
        )
        return tree_where(ordering, order, closed)

    def _choose_card(self, state, d, key):
        """select_card[d] in the ``select`` phase: pick a card of definition ``d``."""
        from tcgjax.games.pokemon import rules as R

        sel = state.selection
        player = state.effect_player.astype(jnp.int32)
        src_def = state.board.definition[jnp.maximum(sel.card.astype(jnp.int32), 0)]
        col = self._row_cols(src_def.astype(jnp.int32), sel.row.astype(jnp.int32))
        op = col["op"]
        source = jnp.asarray(_SOURCE)[op]
        two_step = jnp.asarray(_TWO_STEP)[op]
        from_slot = jnp.where(two_step, jnp.clip(sel.picked.astype(jnp.int32), 0, 5), sel.slot)
        zone = self._source_zone(player, source, from_slot.astype(jnp.int32))
        zone = jnp.where(sel.stage == ORDER, R.zone_of("looking", player), zone)
        card = jnp.maximum(self.card_of(state.board, zone, d), 0)
        dest = jnp.asarray(_DESTINATION)[op]
        layout, board = self.layout, state.board
        turn = board.turn_number.astype(jnp.int16)
        # Ordering the rest: the card goes to the bottom of the deck.
        ordered = zones.move_card(layout, board, card, R.zone_of("deck", player), zones.BOTTOM)
        # Hand / discard.
        to_hand = zones.move_card(layout, board, card, R.zone_of("hand", player)).board
        # To its owner's discard pile: the player's own card, or the Stadium in play (anyone's).
        owner = board.owner[card].astype(jnp.int32)
        to_discard = zones.move_card(layout, board, card, R.zone_of("discard", owner)).board
        to_deck = zones.move_card(layout, board, card, R.zone_of("deck", player)).board
        # A Basic onto the first empty Bench slot.
        occupied = self.slot_view(state)["occupied"][player]
        bench_slot = 1 + jnp.argmin(occupied[1:])
        benched = zones.move_card(layout, board, card, R.slot_zone(player, bench_slot)).board
        # Energy: onto this Pokémon at once when the row targets it, else remember the card.
        onto_self = col["target"] == TARGET["self"]
        own_slot = R.slot_zone(player, jnp.maximum(sel.slot.astype(jnp.int32), 0))
        attached = zones.move_card(layout, board, card, own_slot).board
        boards = [board, to_hand, benched, attached, to_discard, to_deck, board]  # DESTINATIONS
        picked = jax.tree.map(lambda *xs: jnp.stack(xs)[dest], *boards)
        attach_later = (
            (dest == DESTINATIONS.index("attach")) | (dest == DESTINATIONS.index("evolve"))
        ) & ~onto_self
        state_bench = state.replace(
            damage=state.damage.at[player, bench_slot].set(0),
            since_turn=state.since_turn.at[player, bench_slot].set(turn),
        )
        state = tree_where(dest == DESTINATIONS.index("bench"), state_bench, state)
        placing = state.replace(
            selection=sel.replace(stage=jnp.int8(PLACE), picked=card.astype(jnp.int16))
        )
        moved = state.replace(
            board=picked,
            selection=sel.replace(
                left=(sel.left - 1).astype(jnp.int8), picked=card.astype(jnp.int16)
            ),
        )
        in_order = state.replace(
            board=ordered.board, selection=sel.replace(left=(sel.left - 1).astype(jnp.int8))
        )
        # Discarded for damage (Hail Blade): + amount, and the next Pokémon to discard from.
        for_damage = moved.replace(
            bonus_damage=(state.bonus_damage + col["amount"]).astype(jnp.int16),
            selection=moved.selection.replace(stage=jnp.int8(PICK)),
        )
        moved = tree_where(two_step, for_damage, moved)
        del key  # the choice closes after the action when nothing is left (rules.apply)
        return tree_where(sel.stage == ORDER, in_order, tree_where(attach_later, placing, moved))

    def _choose_slot(self, state, k, key):
        """select_slot[k] in the ``select`` phase: a Pokémon for the row (``k`` < 6 the
        player's, else the opponent's slot ``k - 6``)."""
        from tcgjax.games.pokemon import rules as R

        sel = state.selection
        player = state.effect_player.astype(jnp.int32)
        side = jnp.where(k < 6, player, 1 - player)
        slot = k % 6
        src_def = state.board.definition[jnp.maximum(sel.card.astype(jnp.int32), 0)]
        col = self._row_cols(src_def.astype(jnp.int32), sel.row.astype(jnp.int32))
        op = col["op"]
        # PLACE: the picked Energy onto the chosen Pokémon (or Rare Candy's Stage 2 onto it,
        # which evolves it).
        placed = state.replace(
            board=zones.move_card(
                self.layout, state.board, jnp.maximum(sel.picked, 0), R.slot_zone(side, slot)
            ).board,
            selection=sel.replace(stage=jnp.int8(PICK), left=(sel.left - 1).astype(jnp.int8)),
        )
        # Rare Candy evolves: its Stage 2's on-evolve Ability runs once the Trainer is done.
        candied = self.after_evolution(placed, side, slot).replace(
            evolved_card=jnp.maximum(sel.picked, 0).astype(jnp.int16),
            evolved_slot=jnp.asarray(slot, jnp.int8),
        )
        placed = tree_where(op == OP["rare_candy"], candied, placed)
        # TM: Evolution evolves each chosen Pokémon once (no on-evolve Ability: not from the hand).
        from_deck = self.after_evolution(placed, side, slot)
        from_deck = from_deck.replace(effect_evolved=from_deck.effect_evolved.at[slot].set(True))
        placed = tree_where(op == OP["evolve_from_deck"], from_deck, placed)
        # Psychic Embrace: the Energy's Pokémon also gets ``amount`` damage (its counters).
        embraced = placed.replace(
            damage=placed.damage.at[side, slot].add(col["amount"].astype(jnp.int16))
        )
        placed = tree_where(op == OP["discard_attach_energy"], embraced, placed)
        # gust / switch: the chosen Benched Pokémon and the Active trade places.
        swapped = self._swap_active(state, side, slot, retreat=False)
        healed = state.replace(
            damage=state.damage.at[side, slot].set(
                jnp.maximum(state.damage[side, slot] - col["amount"], 0).astype(jnp.int16)
            )
        )
        # Damage to a chosen Pokémon: Weakness and Resistance for an Active one only (``_deal``)
        # unless the row says none (Moonlight Shuriken's Active target gets them).
        no_wr = (col["flags"] & FLAG["no_weakness_resistance"]) != 0
        benched = self._deal(state, player, col["amount"], side, slot, weakness=~no_wr)
        # Moonglow Reverse: up to ``amount`` from each of the player's Pokémon onto the chosen one
        # (moving counters is not damage: no Weakness, Resistance or damage modifiers).
        occupied = self.slot_view(state)["occupied"][player]
        taken = jnp.where(occupied, jnp.minimum(state.damage[player], col["amount"]), 0)
        moved = state.replace(
            damage=state.damage.at[player]
            .add(-taken.astype(jnp.int16))
            .at[side, slot]
            .add(jnp.sum(taken).astype(jnp.int16))
        )
        acted = jax.tree.map(
            lambda *xs: jnp.stack(xs)[
                jnp.select(
                    [op == OP["heal"], op == OP["bench_damage"], op == OP["move_counters"]],
                    [1, 2, 3],
                    0,
                )
            ],
            swapped,
            healed,
            benched,
            moved,
        )
        acted = acted.replace(
            selection=sel.replace(left=(sel.left - 1).astype(jnp.int8), picked=jnp.int16(k))
        )
        # A two-step choice: the Pokémon now, one of its cards next (stage FROM).
        first_step = state.replace(
            selection=sel.replace(stage=jnp.int8(FROM), picked=jnp.asarray(k, jnp.int16))
        )
        acted = tree_where(jnp.asarray(_TWO_STEP)[op], first_step, acted)
        del key  # the choice closes after the action when nothing is left (rules.apply)
        return tree_where(sel.stage == PLACE, placed, acted)

    def _choose_attack(self, state, i, key):
        """attack[i] in the ``select`` phase's ATTACK stage: the opponent's Active Pokémon's
        ``i``-th attack (:meth:`attack_sources` order). ``lock_attack``: it can't be used during
        the opponent's next turn. ``copy_attack``: the attack becomes this one: its rows queue
        as the copied card's, for the attacker, and its damage is dealt as the attack's."""
        from tcgjax.games.pokemon import rules as R

        sel = state.selection
        player = state.effect_player.astype(jnp.int32)
        opponent = 1 - player
        d = state.board.definition[jnp.maximum(sel.card.astype(jnp.int32), 0)].astype(jnp.int32)
        op = self._row_cols(d, sel.row.astype(jnp.int32))["op"]
        chosen = sel.replace(left=(sel.left - 1).astype(jnp.int8), picked=jnp.asarray(i, jnp.int16))
        turn = state.board.turn_number.astype(jnp.int16)
        locked = state.replace(
            locked_attack=state.locked_attack.at[opponent, 0].set(jnp.asarray(i, jnp.int8)),
            # During the opponent's next turn (the attack's player chooses in its own turn).
            locked_turn=state.locked_turn.at[opponent, 0].set(
                last_turn(OPPONENTS_NEXT_TURN, turn, True).astype(jnp.int16)
            ),
            selection=chosen,
        )
        view = self.slot_view(state)
        definition, index, _ = self.attack_sources(view, opponent)
        from_tool = definition[i] != view["definition"][opponent, 0]
        tool = self.card_of(
            state.board, R.slot_zone(opponent, 0), view["tool_definition"][opponent, 0]
        )
        card = jnp.maximum(jnp.where(from_tool, tool, view["card"][opponent, 0]), 0)
        copied = self._activate(state, ATTACK, player, card, 0, index[i])
        copied = copied.replace(attack_index=index[i].astype(jnp.int8), selection=chosen)
        del key
        return tree_where(op == OP["copy_attack"], copied, locked)

    def _stop(self, state, key):
        """done in the ``select`` phase: stop an "up to" choice (it closes after the action)."""
        del key
        return state.replace(selection=state.selection.replace(left=jnp.int8(0)))
