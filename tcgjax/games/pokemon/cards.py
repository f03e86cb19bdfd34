"""The Pokémon TCG card database format: a :class:`~tcgjax.core.cards.CardSchema` and its enums.

Cards live in YAML files (``tcgjax/games/pokemon/cards/*.yaml``) of the form ``{cards: [...]}`` and
load into the core's frozen :class:`~tcgjax.core.cards.CardRegistry` (definition indices in sorted
order of card id, 0 = padding). Stats are facts of the printed card (from the public Pokémon TCG
card data; the printed facts the tests check them against are in
``tests/games/pokemon/data/printed_cards.json``); effects are *rows* for the rules' effect interpreter,
never per-card code; ``text`` is our own paraphrase (never the official wording), kept host-side.

Fields of a card (every field is required; an inapplicable one holds its "none" value):

=======================  ==========================================================================
``id``                   ``<set>-<number>``, e.g. ``sv4-68`` (printings of one card have their own ids)
``name``                 English name; the 4-copy rule and ``evolves_from`` go by name
``kind``                 :data:`KINDS`: ``pokemon``, ``item``, ``supporter``, ``stadium``, ``tool``,
                         ``basic_energy``, ``special_energy``
``stage``                :data:`STAGES`: ``basic``, ``stage1``, ``stage2`` (Pokémon), ``none``
``evolves_from``         the name of the Pokémon it evolves from, ``""`` for a Basic / non-Pokémon
``type``                 the Pokémon's type (:data:`TYPES`, decision P2 order), ``none`` otherwise
``hp``                   printed HP (0 for non-Pokémon)
``weakness``             weakness type or ``none``; ``weakness_multiplier`` 2 (×2), 0 when none
``resistance``           resistance type or ``none``; ``resistance_value`` e.g. -30, 0 when none
``retreat``              retreat cost (Colorless Energy count)
``prizes``               prize cards a Knock Out of it gives (1; 2 for ex and V; 3 for VMAX); 0 for
                         non-Pokémon
``tags``                 :data:`TAGS` (``ex``, ``v``, ``vstar``, ``vmax``): any of them is a rule box
``attacks``              up to 4 rows ``{name, cost, damage, damage_mode}``: ``cost`` a list of types
                         with repeats (``[lightning, colorless]``), ``damage`` the printed number and
                         ``damage_mode`` how it is printed: ``plain`` ("130", also "" as 0),
                         ``plus`` ("30+"), ``times`` ("20×"), ``minus`` ("100-"). A Pokémon
                         Tool's attacks (a Technical Machine) are the holder's too, numbered after
                         the holder's own
``abilities``            up to 1 row ``{name, activation}``: ``activated`` (used from the action
                         list), ``passive`` (always on), ``on_evolve`` or ``on_bench`` (its rows
                         run when the card evolves a Pokémon / is benched from the hand)
``provides``             Energy cards: the units provided while attached, a list of types with
                         repeats (Double Turbo Energy: ``[colorless, colorless]``); ``[]`` otherwise
``damage_modifier``      special Energy: added to the damage its holder's attacks do to the
                         opponent's Pokémon, before Weakness and Resistance (Double Turbo: -20)
``effects``              up to :data:`MAX_EFFECTS` effect rows (below)
``text``                 our paraphrase of the card's effects (``""`` when none)
=======================  ==========================================================================

An effect row: ``{where, gate, condition, condition_value, op, amount, count, look, target,
target_type, card_filter, energy_type, status, rest, flags, max_hp}`` (every key but ``where``
and ``op`` has a default, :data:`EFFECT_DEFAULTS`):

* ``where``: ``attack0``..``attack3`` (resolves as part of that attack, after its base damage is
  fixed and before it is dealt), ``ability`` (the card's ability), ``play`` (a Trainer's effect
  when played), ``attached`` (an Energy's effect while attached).
* ``gate``: what must hold for the row to act, a conjunction of at most :data:`MAX_GATES` of the
  :data:`GATES`, all of which must hold: one name (``gate: heads``) or a list of distinct names
  (``gate: [previous, heads]``: "if you do, flip a coin; if heads, ..."); ``always`` (the
  default) or ``[]`` for none. The gates: ``heads`` / ``tails`` (the activation's coin: one flip
  per attack or Trainer, made when the first row that reads it resolves with its other gates
  holding, so no coin is flipped for an "if you do" that did not happen); ``condition``
  (``condition`` with ``condition_value`` holds); ``previous`` (the row before it did something:
  a switch that found a target, a choice that was made, a row that passed its own gates and acted
  — a row whose gates failed did nothing, so ``previous`` chains through gated rows). ``heads``
  with ``tails`` is refused (never true), and so is ``always`` in a list. Stored as a bit mask
  over :data:`GATES` (0 = always; :func:`gate_names` reads it back).
* ``op`` (:data:`OPS`) with its arguments ``amount`` (damage or HP), ``count`` (cards or targets,
  at most), ``look`` (cards looked at), ``target`` (:data:`TARGETS`) and ``target_type`` (the
  target Pokémon must be of that type; ``none`` = any), ``card_filter``
  (:data:`CARD_FILTERS`) and ``energy_type`` (an Energy card's type, or a Pokémon card's:
  ``basic_pokemon`` with ``lightning`` is a Basic Lightning Pokémon; ``none`` = any type),
  ``status``, ``rest`` (what happens to the cards looked at and not taken), ``max_hp`` (a
  Pokémon chosen by the row has at most this printed HP; 0 = any: Buddy-Buddy Poffin) and
  ``flags`` (``once_per_turn``, ``optional``, ``shuffle_deck``, ``split``: the cards may go to
  different Pokémon, ``no_weakness_resistance``, ``one_by_name``).
  What each op does with them is documented with the rules' effect interpreter.
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np

from tcgjax.core.cards import (
    CardRegistry,
    CardSchema,
    CountsField,
    EnumField,
    FlagsField,
    IntField,
    RowsField,
    TextField,
)
from tcgjax.core.errors import CardDataError

__all__ = [
    "TYPES",
    "KINDS",
    "STAGES",
    "TAGS",
    "STATUSES",
    "WHERE",
    "GATES",
    "MAX_GATES",
    "CONDITIONS",
    "OPS",
    "TARGETS",
    "CARD_FILTERS",
    "RESTS",
    "EFFECT_FLAGS",
    "EFFECT_DEFAULTS",
    "MAX_ATTACKS",
    "MAX_EFFECTS",
    "SCHEMA",
    "CARDS_DIR",
    "SHIPPED_CARDS",
    "gate_names",
    "load_cards",
    "check_card_rules",
]

# Decision P2: the 11 types in this order (one-hot positions of the board encoding).
TYPES = (
    "grass",
    "fire",
    "water",
    "lightning",
    "psychic",
    "fighting",
    "darkness",
    "metal",
    "fairy",
    "dragon",
    "colorless",
)
OPTIONAL_TYPE = ("none", *TYPES)  # index 0 = none; type t is index TYPES.index(t) + 1
KINDS = ("pokemon", "item", "supporter", "stadium", "tool", "basic_energy", "special_energy")
STAGES = ("none", "basic", "stage1", "stage2")
# A Pokémon's Rule Box kinds (any of them is a Rule Box); ``ace_spec`` marks a Trainer (at most
# one ACE SPEC card in a deck), ``radiant`` a Radiant Pokémon (at most one in a deck).
TAGS = ("ex", "v", "vstar", "vmax", "radiant", "ace_spec", "tera")
RULE_BOX_TAGS = ("ex", "v", "vstar", "vmax", "radiant")
DAMAGE_MODES = ("plain", "plus", "times", "minus")
# ``on_evolve``: its rows run when the card is played from the hand to evolve a Pokémon (by
# ``evolve`` or Rare Candy): Charizard ex's Infernal Reign. ``on_bench``: its rows run when the
# card is put onto the Bench from the hand during its owner's turn (Lumineon V's Luminous Sign;
# not when an effect benches it, nor in the setup).
ACTIVATIONS = ("activated", "passive", "on_evolve", "on_bench")
STATUSES = ("none", "asleep", "burned", "confused", "paralyzed", "poisoned")

# ``stadium``: a Stadium's effect, used from play by the player whose turn it is, once a turn
# (Artazon); a Stadium's passive rows (Beach Court) act while it is in play.
WHERE = ("attack0", "attack1", "attack2", "attack3", "ability", "play", "attached", "stadium")
# The gates a row may need, all of them (a conjunction); none = ``always``. Bit i of a stored
# gate is GATES[i].
GATES = ("heads", "tails", "condition", "previous")
ALWAYS = "always"
CONDITIONS = (
    "none",
    "own_ko_by_attack_last_turn",  # one of your Pokémon was Knocked Out by attack damage in the
    # opponent's last turn
    "hand_sizes_equal",  # both hands hold the same number of cards
    "min_energy_on_self",  # at least condition_value Energy of energy_type on this Pokémon
    "self_active",  # this Pokémon is the Active Pokémon (an Ability usable only there)
    "self_basic",  # this Pokémon is a Basic Pokémon (a Tool's HP bonus: Bravery Charm)
    "behind_on_prizes",  # the player has more Prize cards left than the opponent (Defiance Band)
    "opponent_active_evolution",  # the opponent's Active Pokémon is an Evolution (Zeraora)
    "self_pokemon_v",  # this Pokémon (a Tool's: its holder) is a Pokémon V: a V, VSTAR or VMAX
    # (Forest Seal Stone's VSTAR Power; read when the Ability is used)
)
OPS = (
    "extra_damage",  # + amount to this attack's damage
    "extra_damage_per_counter",  # + amount per damage counter on target
    "extra_damage_per_energy",  # + amount per attached Energy of energy_type on target
    "damage",  # put amount damage on target (an attack's damage to a Pokémon, W/R apply)
    "bench_damage",  # amount to each of up to count chosen Benched Pokémon of target's side
    "apply_status",  # status on target
    "attack_does_nothing",  # the attack's damage and other rows are cancelled
    "discard_energy",  # discard count Energy attached to target (the player chooses which)
    "gust",  # switch the opponent's Active with a Benched Pokémon the player chooses
    "switch",  # switch the player's Active with one of their Benched Pokémon
    "search_attach_energy",  # up to count energy_type Energy from the deck onto target
    "discard_attach_energy",  # count energy_type Energy from the discard pile onto target; with
    # amount > 0, that much damage (its counters) is put on the Pokémon it goes to, which can't
    # be one those counters would Knock Out (Gardevoir ex's Psychic Embrace)
    "look_attach_energy",  # look at the top `look`, attach up to count energy_type to target
    "draw",  # draw count cards
    "draw_until",  # draw until the hand has count cards (0: as many as the opponent's hand)
    "shuffle_hand_draw",  # shuffle the hand into the deck, then draw count
    "look_take",  # look at the top `look`, take up to count card_filter cards into the hand
    "search_hand",  # up to count card_filter cards from the deck into the hand
    "search_bench",  # up to count card_filter cards from the deck onto the Bench
    "discard_to_hand",  # count card_filter cards from the discard pile into the hand
    "heal",  # heal amount damage from target
    "cannot_attack_next_turn",  # target can't attack during the player's next turn
    "prevent_attack_effects",  # prevent effects of attacks done to target, opponent's next turn
    "hp_bonus",  # passive: + amount max HP while the condition holds
    "discard_from_hand_cost",  # an ability's cost: discard count card_filter cards from the hand
    "extra_damage_per_heads",  # flip count coins: + amount per heads
    "discard_energy_for_damage",  # discard any number of energy_type Energy from the player's
    # Pokémon (count at most, 0 = no limit): + amount per card discarded
    "hand_attach_energy",  # attach count card_filter / energy_type cards from the hand to target
    "discard_to_deck",  # up to count card_filter cards from the discard pile into the deck
    "discard_hand_draw",  # discard the hand, then draw count
    "hands_to_bottom_draw_prizes",  # both players: the hand shuffled under the deck, then draw a
    # card per Prize card left (when either put a card there)
    "rare_candy",  # a Stage 2 from the hand onto the Basic it evolves from through its Stage 1
    "discard_stadium",  # put the Stadium in play into its owner's discard pile
    "retreat_cost_less",  # passive: a Stadium's, the Retreat Cost of every Pokémon in play of
    # card_filter, both players', is amount Energy less; a passive Ability's, its own Pokémon's
    # while its condition holds (Moltres: no Retreat Cost with a Fire Energy); never below 0
    "extra_damage_per_own_counter",  # + amount per damage counter on the attacker itself
    "extra_damage_per_prize_taken",  # + amount per Prize card the opponent has taken
    "evolve_from_deck",  # for each of up to count of the player's Benched Pokémon, a card from
    # the deck that evolves from it goes onto it (an effect: no first-turn or new-this-turn limit)
    "discard_at_end_of_turn",  # passive, a Tool's: it goes to its owner's discard pile at the end
    # of its owner's turn while attached to one of their Pokémon (Technical Machines)
    "reduce_damage_next_turn",  # this Pokémon takes amount less damage from attacks during the
    # opponent's next turn, after Weakness and Resistance (ends when it moves to the Bench)
    "extra_damage_aura",  # passive Ability: the attacks of the player's Pokémon of card_filter and
    # energy_type (their type) do amount more to the opponent's Active Pokémon, before W/R
    "prevent_supporter_effects",  # passive, a Tool's: the effects of the Supporters the opponent
    # plays do not reach its holder when the holder passes card_filter (Leafy Camo Poncho)
    "cure_self",  # this Pokémon recovers from every Special Condition (Gardevoir ex)
    "move_counters",  # from each of the player's Pokémon move up to amount damage (its counters)
    # onto one chosen Pokémon of target (Cresselia's Moonglow Reverse; not damage: no W/R)
    "shuffle_self_into_deck",  # this Pokémon and every card attached to it into the deck, which
    # is shuffled (Lumineon V's Aqua Return); the player then promotes a new Active Pokémon
    "lock_attack",  # the player chooses an attack of the opponent's Active Pokémon (the
    # ``attack`` stage): it can't use that attack during the opponent's next turn (Ralts)
    "copy_attack",  # the player chooses an attack of the opponent's Active Pokémon (the
    # ``attack`` stage) and uses it as this attack, its cost ignored (Mew ex's Genome Hacking)
)
TARGETS = (
    "none",
    "self",  # the Pokémon this card is (or is attached to)
    "opponent_active",
    "own_active",
    "own_bench",  # one of the player's Benched Pokémon (chosen), or several with `split`
    "own_pokemon",  # any one of the player's Pokémon (chosen)
    "opponent_bench",
    "opponent_pokemon",  # any one of the opponent's Pokémon, Active or Benched (chosen)
)
CARD_FILTERS = (
    "any",
    "pokemon",
    "basic_pokemon",
    "evolution_pokemon",
    "energy",
    "basic_energy",
    "supporter",
    "pokemon_or_basic_energy",
    "item",
    "tool",
    "basic_pokemon_no_rule_box",  # a Basic Pokémon without a Rule Box (RULE_BOX_TAGS)
    "trainer",  # an Item, Supporter, Stadium or Pokémon Tool
    "pokemon_vstar_or_vmax",  # a Pokémon VSTAR or VMAX
)
RESTS = ("none", "bottom_any_order", "shuffle")
# ``one_by_name``: an Ability that one Pokémon of the player may use a turn, among all the
# Pokémon with an Ability of that name (Pidgeot ex's Quick Search).
# ``vstar_power``: a VSTAR Power, one a game for each player, whichever card gives it (Forest
# Seal Stone's Star Alchemy).
EFFECT_FLAGS = ("once_per_turn", "optional", "shuffle_deck", "split", "no_weakness_resistance",
                "one_by_name", "vstar_power")  # fmt: skip

# What a Pokémon Tool's attached rows may do, and be conditioned on (read while it is attached, in
# rules.slot_view and, for the end-of-turn discard, rules._discard_at_turn_end).
TOOL_OPS = ("extra_damage", "hp_bonus", "discard_at_end_of_turn", "prevent_supporter_effects")
TOOL_CONDITIONS = ("none", "self_basic", "behind_on_prizes")
MAX_ATTACKS = 4
MAX_EFFECTS = 6
# Gates a row may join (issue #32): the shipped texts join at most two conditions ("if you do,
# ... if heads"). The interpreter checks all of GATES on every row whatever this is (a mask over
# one truth vector); the budget bounds what card data may say, so a text joining more is a new
# shape of card to review, not a row that passes unnoticed.
MAX_GATES = 2
EFFECT_DEFAULTS = {
    "gate": ALWAYS,
    "condition": "none",
    "condition_value": 0,
    "amount": 0,
    "count": 0,
    "look": 0,
    "target": "none",
    "target_type": "none",
    "card_filter": "any",
    "energy_type": "none",
    "status": "none",
    "rest": "none",
    "flags": [],
    "max_hp": 0,
}


@dataclasses.dataclass(frozen=True)
class GatesField(FlagsField):
    """A row's gates, a conjunction: ``always``, one gate name, or a list of at most
    ``max_gates`` distinct gate names (``values``) that must all hold; stored as a bit mask
    (0 = always). ``heads`` with ``tails`` never holds and is refused."""

    max_gates: int = MAX_GATES

    def parse(self, value):
        if value == ALWAYS:
            return 0
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            raise ValueError(f"expected a gate name or a list of gate names, got {value!r}")
        if ALWAYS in value:
            raise ValueError(f"{ALWAYS!r} stands alone (it is the empty list), got {value!r}")
        if len(value) > self.max_gates:
            raise ValueError(
                f"{len(value)} gates, at most {self.max_gates} (MAX_GATES) a row: {value!r}"
            )
        mask = super().parse(value)
        if "heads" in value and "tails" in value:
            raise ValueError("heads and tails together never hold")
        return mask


def gate_names(mask: int) -> tuple[str, ...]:
    """The gates of a stored ``gate`` bit mask, in :data:`GATES` order (``()`` = always)."""
    return tuple(g for i, g in enumerate(GATES) if int(mask) >> i & 1)


EFFECT_ROW = RowsField(
    "effects",
    MAX_EFFECTS,
    (
        EnumField("where", WHERE),
        GatesField("gate", GATES, dtype=np.int8),
        EnumField("condition", CONDITIONS),
        IntField("condition_value", 0, 10, dtype=np.int8),
        EnumField("op", OPS),
        IntField("amount", 0, 300),
        IntField("count", 0, 10, dtype=np.int8),
        IntField("look", 0, 10, dtype=np.int8),
        EnumField("target", TARGETS),
        EnumField("target_type", OPTIONAL_TYPE),
        EnumField("card_filter", CARD_FILTERS),
        EnumField("energy_type", OPTIONAL_TYPE),
        EnumField("status", STATUSES),
        EnumField("rest", RESTS),
        FlagsField("flags", EFFECT_FLAGS, dtype=np.int8),
        IntField("max_hp", 0, 400),
    ),
    defaults=EFFECT_DEFAULTS,
)
ATTACK_ROW = RowsField(
    "attacks",
    MAX_ATTACKS,
    (
        TextField("name"),
        CountsField("cost", TYPES, max_total=5),
        IntField("damage", 0, 400),
        EnumField("damage_mode", DAMAGE_MODES),
    ),
)
ABILITY_ROW = RowsField("abilities", 1, (TextField("name"), EnumField("activation", ACTIVATIONS)))

SCHEMA = CardSchema(
    (
        TextField("name"),
        EnumField("kind", KINDS),
        EnumField("stage", STAGES),
        TextField("evolves_from"),
        EnumField("type", OPTIONAL_TYPE),
        IntField("hp", 0, 400),
        EnumField("weakness", OPTIONAL_TYPE),
        IntField("weakness_multiplier", 0, 4, dtype=np.int8),
        EnumField("resistance", OPTIONAL_TYPE),
        IntField("resistance_value", -60, 0, dtype=np.int8),
        IntField("retreat", 0, 5, dtype=np.int8),
        IntField("prizes", 0, 3, dtype=np.int8),
        FlagsField("tags", TAGS, dtype=np.int8),
        ATTACK_ROW,
        ABILITY_ROW,
        CountsField("provides", TYPES, max_total=4),
        IntField("damage_modifier", -100, 100),
        EFFECT_ROW,
        TextField("text"),
    )
)

CARDS_DIR = os.path.join(os.path.dirname(__file__), "cards")
SHIPPED_CARDS = os.path.join(CARDS_DIR, "sv_battle_decks.yaml")


def load_cards(path: str | os.PathLike = SHIPPED_CARDS) -> CardRegistry:
    """Load a Pokémon card file and check the rules between its fields (:func:`check_card_rules`).

    Raises:
      CardDataError: naming the file, the card id and the field.
    """
    registry = CardRegistry.load(path, SCHEMA)
    check_card_rules(registry)
    return registry


def _problem(card: dict) -> tuple[str, str] | None:
    """``(field, problem)`` for the first rule between fields that ``card`` breaks, else None."""
    kind, stage = KINDS[card["kind"]], STAGES[card["stage"]]
    pokemon = kind == "pokemon"
    if pokemon != (stage != "none"):
        return "stage", "a Pokémon has a stage (basic, stage1, stage2); other cards have none"
    if (stage in ("stage1", "stage2")) != bool(card["evolves_from"]):
        return "evolves_from", "a Stage 1 or Stage 2 Pokémon names what it evolves from; others ''"
    if pokemon and (card["type"] == 0 or card["hp"] <= 0 or card["prizes"] <= 0):
        return "type", "a Pokémon has a type, HP > 0 and prizes > 0"
    if not pokemon and (card["type"] or card["hp"] or card["prizes"] or card["retreat"]):
        return "type", "only Pokémon have a type, HP, prizes and a retreat cost"
    tags = {t for i, t in enumerate(TAGS) if card["tags"] >> i & 1}
    if not pokemon and (
        ((card["attacks"] or card["abilities"]) and kind != "tool") or tags - {"ace_spec"}
    ):
        return "attacks", (
            "only Pokémon have attacks, abilities (and Pokémon Tools that give one) and Rule Box "
            "tags"
        )
    if kind == "tool" and any(
        ACTIVATIONS[a["activation"]] != "activated" for a in card["abilities"]
    ):
        return "abilities", "a Pokémon Tool gives an activated Ability (used from the action list)"
    if "ace_spec" in tags and kind not in ("item", "supporter", "stadium", "tool"):
        return "tags", "only a Trainer is an ACE SPEC"
    if (card["weakness"] == 0) != (card["weakness_multiplier"] == 0):
        return "weakness_multiplier", "a weakness has a multiplier, no weakness has 0"
    if (card["resistance"] == 0) != (card["resistance_value"] == 0):
        return "resistance_value", "a resistance has a (negative) value, no resistance has 0"
    energy = kind in ("basic_energy", "special_energy")
    if energy != bool(sum(card["provides"])):
        return "provides", "Energy cards provide at least one unit; other cards provide none"
    if kind == "basic_energy" and (sum(card["provides"]) != 1 or card["damage_modifier"]):
        return "provides", "a basic Energy provides exactly one unit and has no damage modifier"
    if card["damage_modifier"] and kind != "special_energy":
        return "damage_modifier", "only special Energy modifies damage"
    wheres = {WHERE[row["where"]] for row in card["effects"]}
    for where in sorted(wheres):
        if where.startswith("attack") and int(where[-1]) >= len(card["attacks"]):
            return "effects", f"a row for {where}, which the card does not have"
        if where == "ability" and not card["abilities"]:
            return "effects", "a row for an ability, which the card does not have"
        if where == "play" and kind not in ("item", "supporter", "stadium", "tool"):
            return "effects", "'play' rows belong to Trainer cards"
        if where == "attached" and not (energy or kind == "tool"):
            return "effects", "'attached' rows belong to Energy cards and Pokémon Tools"
        if (where == "stadium") != (kind == "stadium"):
            return "effects", "a Stadium's rows are 'stadium' rows, and only a Stadium has them"
    passive_ability = (
        bool(card["abilities"]) and ACTIVATIONS[card["abilities"][0]["activation"]] == "passive"
    )
    for row in card["effects"]:
        if OPS[row["op"]] == "extra_damage_aura" and not (
            WHERE[row["where"]] == "ability" and passive_ability
        ):
            return "effects", "extra_damage_aura is a passive Ability's row"
        if OPS[row["op"]] != "retreat_cost_less":
            continue
        stadium = kind == "stadium" and len(card["effects"]) == 1
        passive_ability = (
            WHERE[row["where"]] == "ability"
            and bool(card["abilities"])
            and ACTIVATIONS[card["abilities"][0]["activation"]] == "passive"
        )
        if not (stadium or passive_ability):
            return "effects", (
                "retreat_cost_less is a Stadium's one row or a passive Ability's (a passive effect)"
            )
    if kind == "tool":
        for row in card["effects"]:
            op, condition = OPS[row["op"]], CONDITIONS[row["condition"]]
            if WHERE[row["where"]].startswith("attack") or WHERE[row["where"]] == "ability":
                continue  # the rows of the attack or Ability it gives, like a Pokémon's
            if WHERE[row["where"]] != "attached" or op not in TOOL_OPS:
                return "effects", (
                    "a Pokémon Tool's rows are its attacks' and Ability's rows or 'attached' "
                    f"{', '.join(TOOL_OPS)}"
                )
            if condition not in TOOL_CONDITIONS:
                return "effects", f"a Tool's row condition is one of {TOOL_CONDITIONS}"
    return None


def check_card_rules(registry: CardRegistry) -> None:
    """The rules between fields of every card (a Pokémon has a stage and HP, only Energy provides
    energy, effect rows point at attacks the card has, ...). Raises ``CardDataError``."""
    for card_id in registry.ids[1:]:
        problem = _problem(dict(registry.definition(card_id)))
        if problem is not None:
            raise CardDataError(registry.source, card_id, *problem)
