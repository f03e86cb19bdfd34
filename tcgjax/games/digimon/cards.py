"""The Digimon card database format: a :class:`~tcgjax.core.cards.CardSchema` and its enums.

Cards live in YAML files (``tcgjax/games/digimon/cards/*.yaml``) of the form ``{cards: [...]}`` and load
into the core's frozen :class:`~tcgjax.core.cards.CardRegistry` (definition indices in sorted order of
card number, 0 = padding: decision G3). Every stat is a fact of the printed card; every effect is a
*row* run by the rules' effect interpreter, never per-card code. ``text`` is our own paraphrase of the
card's effects (never the official wording), kept host-side for renderers and docs.

Fields of a card (all required unless a default is given here):

=====================  =========================================================================
``id``                 the card number, e.g. ``ST1-03`` (alternate arts share it)
``name``               English name
``kind``               ``digi_egg`` | ``digimon`` | ``tamer`` | ``option``
``colors``             list of :data:`COLORS`
``level``              2..7 for Digi-Eggs and Digimon, 0 for Tamers and Options
``play_cost``          memory to play (Digimon, Tamer) or use (Option); -1 for Digi-Eggs
``dp``                 printed DP of a Digimon, 0 otherwise
``digivolve``          up to 4 requirements ``{color, level, cost}``: digivolves from a Digimon of that
                       color and level for that cost
``dna``                DNA digivolution: ``[]`` or exactly 2 requirements ``{color, level}``
``dna_cost``           memory of the DNA digivolution, -1 when ``dna`` is empty
``keywords``           keywords of the card's own text (:data:`KEYWORDS`)
``inherited_keywords`` keywords given to the Digimon above it while it is a digivolution card
``effects``            up to 4 effect rows (below)
``text``               our paraphrase of the effects ("" when none)
=====================  =========================================================================

An effect row: ``{where, trigger, window, flags, condition, condition_value, op, target, amount,
amount_per, count, max_dp, max_level, cannot, duration, kinds, grant, max_cost, burst, colors,
min_level, play_costs}``:

* ``where``: ``main`` (the card's own text: the top card of a Digimon, a Tamer in play, an Option
  being used), ``inherited`` (applies to the Digimon this card is a digivolution card of),
  ``security`` (resolves when the card is flipped by a security check).
* ``trigger`` (:data:`TRIGGERS`): ``continuous`` (a modifier that holds while its window and
  condition hold: DP, Security A., …), ``on_play``, ``when_digivolving``, ``when_attacking``,
  ``on_deletion``, ``start_of_your_turn``, ``end_of_your_turn``, ``when_blocked`` (this Digimon's
  attack was blocked), ``security_added`` (a card was added to your security stack), ``main``
  (the [Main] effect of an Option, or an activated [Main] effect of a permanent), ``security``.
* ``window``: ``all_turns`` (default), ``your_turn``, ``opponents_turn`` — the [Your Turn] /
  [Opponent's Turn] brackets ("your" = the controller of the card; for a ``security`` row, the
  owner of the security card, i.e. the defending player).
* ``flags``: any of ``once_per_turn``, ``optional`` (the player may decline with action 62: a
  row that chooses offers 62 beside its choices; a row that chooses nothing first asks, in
  SelectEffectChoice, 1000 to resolve it or 62 not to), ``up_to`` (choose 0..count instead of
  exactly count), ``cost_suspend_self`` ("you may suspend this card to ...": an optional row
  that resolves only while its permanent is unsuspended and suspends it when taken).
* ``condition`` (:data:`CONDITIONS`) with ``condition_value``.
* ``op`` (:data:`OPS`), the primitive, with its arguments ``target`` (:data:`TARGETS`), ``amount``,
  ``amount_per`` (``fixed`` or ``per_two_sources``: amount × ⌊digivolution cards / 2⌋), ``count``,
  ``max_dp`` / ``max_level`` (-1 = no bound), ``cannot`` (``attack``, ``block``,
  ``attack_player``, ``be_blocked``; a continuous ``restrict`` row on ``self`` too), ``duration``
  (:data:`DURATIONS`) and the card filter of ``reveal_add``, ``play_free``, ``trash_to_hand`` and
  ``play_from_trash``: ``kinds`` (the card kinds they may choose; empty = any), ``colors`` (a
  chosen card shares one of these colors; empty = any), ``play_costs`` (a chosen card's play
  cost is one of these; empty = any) and ``min_level`` / ``max_level`` (bounds on a chosen
  Digimon's level; -1 = none). What each op does with them is documented in the rules' effect interpreter.
* ``trigger: branch`` rows run only when chosen: a ``choose_one`` row with ``count`` n is followed
  by its n branch rows (SelectEffectChoice ids 1000 + i choose branch i).
"""

from __future__ import annotations

import os

from tcgjax.core.cards import (
    CardRegistry,
    CardSchema,
    EnumField,
    FlagsField,
    IntField,
    RowsField,
    TextField,
)

__all__ = [
    "COLORS",
    "KINDS",
    "KEYWORDS",
    "WHERE",
    "TRIGGERS",
    "WINDOWS",
    "EFFECT_FLAGS",
    "CONDITIONS",
    "OPS",
    "TARGETS",
    "AMOUNT_PER",
    "CANNOT",
    "DURATIONS",
    "SCHEMA",
    "CARDS_DIR",
    "STARTER_CARDS",
    "MAX_DIGIVOLVE",
    "MAX_EFFECTS",
    "load_cards",
    "row_problem",
    "branch_problem",
    "MAX_AMOUNT",
    "MAX_REVEAL",
    "MAX_BRANCHES",
]

COLORS = ("red", "blue", "yellow", "green", "black", "purple", "white")
KINDS = ("digi_egg", "digimon", "tamer", "option")
DIGI_EGG, DIGIMON, TAMER, OPTION = range(4)
KEYWORDS = (
    "blocker",
    "rush",
    "piercing",
    "jamming",
    "reboot",
    "retaliation",
    "blast_digivolve",
)
WHERE = ("main", "inherited", "security")
TRIGGERS = (
    "continuous",
    "on_play",
    "when_digivolving",
    "when_attacking",
    "on_deletion",
    "start_of_your_turn",
    "end_of_your_turn",
    "when_blocked",
    "security_added",
    "main",
    "security",
    "branch",
    # An opposing Digimon was deleted by the rules because its DP fell to 0 (fires the rows of
    # every permanent of the deleted Digimon's opponent; once per rules check, see rules.py).
    "opponent_deleted_at_zero_dp",
    # The end of the opponent's turn (fires with the turn player's [End of Your Turn] rows).
    "end_of_opponents_turn",
    # One of the controller's Digimon blocks (suspended by <Blocker>; fires with [When Blocked]).
    "own_digimon_blocks",
    # An opposing Digimon became suspended (by attacking, by blocking, by an effect or a cost):
    # fires the rows of every permanent of the suspended Digimon's opponent, once per event.
    "opponent_digimon_suspended",
    # This Digimon deleted the Digimon it battled and was not deleted itself (a battle with a
    # security card deletes nothing: official Q&A on ST4-11).
    "won_battle",
    # One of the controller's Digimon was deleted (in battle, by an effect or by the 0 DP rule):
    # fires the rows of every permanent of that player, once per event, with [On Deletion].
    "own_digimon_deleted",
    # One of the opponent's Digimon was deleted (in battle, by an effect or by the 0 DP rule):
    # fires the rows of every permanent of the deleted Digimon's opponent, once per event, except
    # a permanent deleted in the same event (Q681, Q683; ST-7's Gigimon, Guilmon, Growlmon,
    # WarGrowlmon).
    "opponent_digimon_deleted",
)
WINDOWS = ("all_turns", "your_turn", "opponents_turn")
# cost_suspend_self: "you may suspend this card to ...": the (optional) row resolves only while
# its card's permanent is unsuspended, and taking it (a choice, or 1000 when it chooses nothing)
# suspends it.
# no_on_play: a Digimon the row plays does not fire its [On Play] rows. gates_next: "if you do":
# the next row (of the same card and trigger) resolves only when this one was taken and chose.
# else_next: "if you don't" (ST7-09 Gallantmon): the next row resolves only when this one was
# taken and had nothing to choose (no valid target: Q689; a chosen Digimon that is not deleted
# still counts as chosen: Q691).
EFFECT_FLAGS = (
    "once_per_turn",
    "optional",
    "up_to",
    "cost_suspend_self",
    "no_on_play",
    "gates_next",
    "else_next",
)
CONDITIONS = (
    "none",
    "min_sources",  # this Digimon has >= condition_value digivolution cards
    "opponent_has_no_source_digimon",  # the opponent has a Digimon with no digivolution cards
    "battling_no_source_digimon",  # this Digimon battles an opponent's Digimon with none
    "own_security_at_least",  # the controller's security stack holds >= condition_value cards
    "own_security_at_most",  # the controller's security stack holds <= condition_value cards
    "has_keyword",  # this Digimon has keyword KEYWORDS[condition_value] (continuous rows)
    "opponent_did_not_attack",  # the opponent declared no attack with a Digimon this turn
    "self_level_at_least",  # this Digimon (its top card) is level >= condition_value
    "own_trash_at_least",  # the controller's trash holds >= condition_value cards
    # This Digimon's attack was declared against an opposing Digimon (not the player): read
    # when the row resolves ([When Attacking]: before any block), never for continuous rows.
    "attacking_a_digimon",
    # The controller's hand holds >= / <= condition_value cards: read live by a continuous row
    # (it applies the moment the hand reaches the count: rules 15-8-2) and when a row resolves
    # (ST-8's Veemon line: DemiVeemon, Gabumon, Veemon, Veedramon, AeroVeedramon).
    "own_hand_at_least",
    "own_hand_at_most",
    # This Digimon's attack was declared against the opponent (the player, not a Digimon): the
    # mirror of attacking_a_digimon, read at the declaration (rules 11-2-7-6; ST7-02 Agumon).
    "attacking_the_player",
    # The controller's security stack holds no more cards than the opponent's (ST7-11).
    "own_security_at_most_opponents",
    # The controller's opponent has a Digimon of level >= condition_value in their battle area
    # (ST7-03 Guilmon, ST8-04 Veemon: "while your opponent has a level 6 Digimon").
    "opponent_has_level_at_least",
)
OPS = (
    "dp_mod",  # DP +amount to the target(s) for the duration
    "security_attack_mod",  # <Security A. +amount> to the target(s) for the duration
    "memory",  # +amount memory to the effect's controller (negative: lose)
    "draw",  # <Draw amount>
    "delete",  # delete count target Digimon (max_dp / max_level bounds)
    "trash_sources",  # trash amount digivolution cards from the bottom of count targets
    "unsuspend",  # unsuspend the target(s)
    "suspend",  # suspend the target(s)
    "play_self",  # play this card (from security) without paying its cost
    "activate_main",  # resolve this card's [Main] effect rows (an Option's security effect)
    "restrict",  # the target(s) cannot do ``cannot`` for the duration
    "play_from_sources",  # play count Digimon cards among an own Digimon's sources, free
    "bounce_to_hand",  # return count targets to their owner's hand (sources to the trash)
    "return_to_deck",  # put count targets at the bottom of their owner's deck (sources too)
    "de_digivolve",  # <De-Digivolve amount>: trash amount cards from the top of the target
    "recovery",  # <Recovery +amount (Deck)>: top amount deck cards onto your security
    # Reveal amount deck cards, add count matching ones to hand, the rest under the deck in the
    # order the player gives.
    "reveal_add",
    "trash_from_hand",  # trash count cards from your hand (SelectHand, ids 30-59)
    "play_free",  # play count matching Digimon / Tamers from hand without paying the cost
    "trash_to_hand",  # add count matching cards from your trash to your hand (SelectTrash)
    "trash_security",  # trash count cards of a security stack, chosen by index (SelectSecurity)
    "choose_one",  # choose one of the next count rows (trigger: branch) (SelectEffectChoice)
    "add_self_to_hand",  # this checked security card goes to its owner's hand, not the trash
    "grant_keyword",  # the target(s) gain the keywords ``grant`` for the duration
    "mill",  # put the top amount cards of your deck into your trash (fewer if the deck runs out)
    # Trash the top amount cards of a security stack (target: player / opponent): no [Security]
    # effect, and an empty stack wins nothing (not a security check).
    "trash_security_top",
    # Play count matching Digimon / Tamer cards from your trash without paying the cost
    # (SelectTrash, ids 130-179).
    "play_from_trash",
    # A continuous row of a Digimon's own text: it may digivolve into a hand card named exactly
    # ``name_is`` for ``amount`` memory, ignoring the printed requirements (rules 8-1-2-2; ST7-03
    # Guilmon into [Gallantmon], ST8-04 Veemon into [UlforceVeedramon]).
    "digivolve_into",
    # A checked Digimon card battles as a Security Digimon, then, whatever the result, enters
    # its owner's battle area for free instead of the trash (rules 13-1-8, 14-2-5; ST7-06,
    # ST8-06; Q684-Q687, Q699-Q701); its [On Play] rows resolve before the next check.
    "play_self_after_battle",
)
TARGETS = (
    "self",  # this Digimon (or this card)
    "player",  # the controller (memory, draw, recovery, hand)
    "choose_own_digimon",
    "all_own_digimon",
    "own_security_digimon",  # your Digimon revealed from security while they battle
    "choose_opponent_digimon",
    "all_opponent_digimon",
    "choose_opponent_no_source_digimon",  # an opponent's Digimon with no digivolution cards
    "opponent",  # the controller's opponent (their security stack)
    "choose_opponent_suspended_digimon",  # a suspended opposing Digimon
)
AMOUNT_PER = ("fixed", "per_two_sources")
# What a restriction forbids: attacking, blocking, attacking the player (ST7-04 Biyomon: a
# suspended Digimon may still be attacked) and being blocked (ST8-09 Slayerdramon: no blocker
# is offered, so the block timing is skipped; Q703).
CANNOT = ("attack", "block", "attack_player", "be_blocked")
DURATIONS = (
    "continuous",  # while the source of the effect holds (a continuous row), or instant ops
    "this_turn",
    "until_end_of_opponents_next_turn",
    "until_end_of_your_next_turn",
)
MAX_DIGIVOLVE = 4
MAX_EFFECTS = 4
PLAY_COSTS = tuple(range(21))  # the values a row's ``play_costs`` filter may list
MAX_BURST = 4  # <Digi-Burst N>: digivolution cards trashed to activate a [Main] row (loop bound)

EFFECT_ROW = RowsField(
    "effects",
    MAX_EFFECTS,
    (
        EnumField("where", WHERE),
        EnumField("trigger", TRIGGERS),
        EnumField("window", WINDOWS),
        FlagsField("flags", EFFECT_FLAGS, dtype="int8"),
        EnumField("condition", CONDITIONS),
        IntField("condition_value", 0, 20, dtype="int8"),
        EnumField("op", OPS),
        EnumField("target", TARGETS),
        IntField("amount", -20000, 20000),
        EnumField("amount_per", AMOUNT_PER),
        IntField("count", 0, 10, dtype="int8"),
        IntField("max_dp", -1, 30000),
        IntField("max_level", -1, 7, dtype="int8"),
        FlagsField("cannot", CANNOT, dtype="int8"),
        EnumField("duration", DURATIONS),
        FlagsField("kinds", KINDS, dtype="int8"),
        FlagsField("grant", KEYWORDS, dtype="int8"),
        IntField("max_cost", -1, 20, dtype="int8"),
        IntField("burst", 0, MAX_BURST, dtype="int8"),
        FlagsField("colors", COLORS, dtype="int8"),
        IntField("min_level", -1, 7, dtype="int8"),
        FlagsField("play_costs", PLAY_COSTS, dtype="int32"),
        # The card's name includes this text (rules 2-3-1-3, "[Dramon] in its name": letter case
        # aside, so Coredramon matches and Dracomon does not; ST8-03). Host-side text: the rules
        # build a table of the distinct texts against every card's name.
        TextField("name_has"),
        # The exact card name a ``digivolve_into`` row names (rules 2-3-1-2, "[Gallantmon]").
        TextField("name_is"),
        # ``delete`` on a choose_* target: the player picks Digimon one at a time while the sum
        # of their DP (read when picked) stays <= this, at least one when any can be picked
        # (rules 1-3-6), then all of them are deleted together (ST7-12 Atomic Blaster; Q692-Q694).
        IntField("max_total_dp", -1, 30000),
    ),
    defaults={
        "window": "all_turns",
        "flags": [],
        "condition": "none",
        "condition_value": 0,
        "target": "self",
        "amount": 0,
        "amount_per": "fixed",
        "count": 1,
        "max_dp": -1,
        "max_level": -1,
        "cannot": [],
        "duration": "continuous",
        "kinds": [],
        "grant": [],
        "max_cost": -1,
        "burst": 0,
        "colors": [],
        "min_level": -1,
        "play_costs": [],
        "name_has": "",
        "name_is": "",
        "max_total_dp": -1,
    },
)

SCHEMA = CardSchema(
    (
        TextField("name"),
        EnumField("kind", KINDS),
        FlagsField("colors", COLORS, dtype="int8"),
        IntField("level", 0, 7, dtype="int8"),
        IntField("play_cost", -1, 20, dtype="int8"),
        IntField("dp", 0, 30000),
        RowsField(
            "digivolve",
            MAX_DIGIVOLVE,
            (
                EnumField("color", COLORS),
                IntField("level", 2, 7, dtype="int8"),
                IntField("cost", 0, 20, dtype="int8"),
            ),
        ),
        RowsField(
            "dna",
            2,
            (EnumField("color", COLORS), IntField("level", 2, 7, dtype="int8")),
        ),
        IntField("dna_cost", -1, 20, dtype="int8"),
        FlagsField("keywords", KEYWORDS, dtype="int8"),
        FlagsField("inherited_keywords", KEYWORDS, dtype="int8"),
        EFFECT_ROW,
        TextField("text"),
    )
)

CARDS_DIR = os.path.join(os.path.dirname(__file__), "cards")
STARTER_CARDS = os.path.join(CARDS_DIR, "starter.yaml")


def load_cards(path: str | os.PathLike = STARTER_CARDS) -> CardRegistry:
    """Load and validate a Digimon card file (the shipped ST-1/ST-2 database by default).

    Raises:
      CardDataError: the file, the card number and the field of the first problem.
    """
    registry = CardRegistry.load(path, SCHEMA)
    check_card_rules(registry)
    return registry


def check_card_rules(registry: CardRegistry) -> None:
    """Facts every Digimon card obeys by kind (beyond each field's own range).

    Raises:
      CardDataError: naming the file, the card and the field.
    """
    from tcgjax.core.errors import CardDataError

    for cid in registry.ids[1:]:
        row = registry.definition(cid)
        kind = KINDS[row["kind"]]

        def fail(field, problem, cid=cid, kind=kind):
            raise CardDataError(registry.source, cid, field, f"a {kind} card: {problem}")

        if row["colors"] == 0:
            fail("colors", "needs at least one color")
        if kind == "digi_egg":
            if row["level"] != 2 or row["play_cost"] != -1 or row["dp"] != 0:
                fail("level", "Digi-Eggs are level 2, with play_cost -1 and dp 0")
            if row["digivolve"] or row["dna"]:
                fail("digivolve", "a Digi-Egg is hatched, it does not digivolve")
        elif kind == "digimon":
            if not 3 <= row["level"] <= 7 or row["play_cost"] < 0:
                fail("level", "Digimon are level 3 to 7 with a play cost >= 0")
        else:
            if row["level"] != 0 or row["dp"] != 0 or row["play_cost"] < 0:
                fail("level", "Tamers and Options have level 0, dp 0 and a play cost >= 0")
            if row["digivolve"] or row["dna"] or row["inherited_keywords"]:
                fail("digivolve", "only Digimon digivolve or have inherited keywords")
        if (row["dna_cost"] >= 0) != bool(row["dna"]) or len(row["dna"]) not in (0, 2):
            fail("dna", "give 2 DNA requirements with a dna_cost >= 0, or none with dna_cost -1")
        for r, effect in enumerate(row["effects"]):
            if WHERE[effect["where"]] == "inherited" and kind not in ("digi_egg", "digimon"):
                fail("effects", f"row {r}: only Digi-Eggs and Digimon have inherited effects")
            problem = row_problem(kind, effect)
            if problem:
                fail("effects", f"row {r}: {problem}")
        if sum(OPS[e["op"]] == "digivolve_into" for e in row["effects"]) > 1:
            fail("effects", "one digivolve_into row per card")
        problem = branch_problem(row["effects"])
        if problem:
            fail("effects", problem)


# What the rules' effect interpreter runs: (op -> targets it accepts). A row outside this table
# would silently do nothing, so the loader refuses it (no silent fallback).
_CHOOSE = (
    "choose_own_digimon",
    "choose_opponent_digimon",
    "choose_opponent_no_source_digimon",
    "choose_opponent_suspended_digimon",
)
_CONTINUOUS_OPS = {"dp_mod": ("self", "all_own_digimon", "own_security_digimon"),
                   "security_attack_mod": ("self", "all_own_digimon"),
                   "restrict": ("self",),
                   "digivolve_into": ("self",)}  # fmt: skip
_TRIGGERED_OPS = {
    "dp_mod": ("self", "all_own_digimon", "own_security_digimon", *_CHOOSE),
    "security_attack_mod": (
        "self",
        "all_own_digimon",
        "choose_own_digimon",
        "choose_opponent_digimon",
        "all_opponent_digimon",
    ),
    "memory": ("player",),
    "draw": ("player",),
    "recovery": ("player",),
    "delete": _CHOOSE,
    "trash_sources": _CHOOSE,
    "de_digivolve": _CHOOSE,
    "bounce_to_hand": _CHOOSE,
    "restrict": _CHOOSE,
    "suspend": ("self", *_CHOOSE),
    "unsuspend": ("self", *_CHOOSE),
    "play_self": ("self",),
    "activate_main": ("self",),
    "play_from_sources": ("choose_own_digimon",),
    "return_to_deck": _CHOOSE,
    "reveal_add": ("player",),
    "trash_from_hand": ("player",),
    "play_free": ("player",),
    "trash_to_hand": ("player",),
    "trash_security": ("player", "opponent"),
    "choose_one": ("self",),
    "add_self_to_hand": ("self",),
    "grant_keyword": ("self", "choose_own_digimon", "all_own_digimon"),
    "mill": ("player",),
    "trash_security_top": ("player", "opponent"),
    "play_from_trash": ("player",),
    "play_self_after_battle": ("self",),
}
MAX_AMOUNT = 3  # <Draw N>, <Recovery +N>, cards trashed by one row: the interpreter's loop bound
MAX_REVEAL = 5  # cards one reveal_add row reveals at most (its loop bound)
MAX_BRANCHES = 3  # branches of one choose_one row
_BOUNDED = ("draw", "recovery", "trash_sources", "de_digivolve", "mill", "trash_security_top")
# Ops that read the card filter (kinds, colors, min_level / max_level).
_FILTERED = ("reveal_add", "play_free", "trash_to_hand", "play_from_trash")
_PLAYS = ("play_free", "play_from_trash")  # ops that play a card the player chooses


def row_problem(kind: str, effect: dict) -> str | None:
    """Why the effect interpreter cannot run this row as written, or ``None``."""
    op, target = OPS[effect["op"]], TARGETS[effect["target"]]
    trigger, where = TRIGGERS[effect["trigger"]], WHERE[effect["where"]]
    if (where == "security") != (trigger == "security"):
        return "security rows (where) and the security trigger go together"
    if trigger == "main" and where != "main":
        return "a [Main] row belongs to the card's own text (where: main)"
    if trigger == "main" and kind == "digi_egg":
        return "a Digi-Egg has no [Main] effect"
    table = _CONTINUOUS_OPS if trigger == "continuous" else _TRIGGERED_OPS
    if op not in table:
        return f"op {op} cannot be a {trigger} row"
    if target not in table[op]:
        return f"op {op} with target {target}: expected one of {list(table[op])}"
    if (op == "restrict") != (effect["cannot"] != 0):
        return "restrict and what it forbids (cannot) go together"
    if trigger == "continuous" and effect["duration"] != DURATIONS.index("continuous"):
        return "a continuous row has the duration continuous"
    if trigger != "continuous" and CONDITIONS[effect["condition"]] == "battling_no_source_digimon":
        return "the condition battling_no_source_digimon holds only for continuous rows"
    if trigger == "continuous" and CONDITIONS[effect["condition"]] in (
        "attacking_a_digimon",
        "attacking_the_player",
    ):
        condition = CONDITIONS[effect["condition"]]
        return f"the condition {condition} is read when a row resolves, not continuously"
    if op in _BOUNDED and not 1 <= effect["amount"] <= MAX_AMOUNT:
        return f"{op} amount {effect['amount']} outside 1..{MAX_AMOUNT}"
    if (op == "grant_keyword") != (effect["grant"] != 0):
        return "grant_keyword and its keywords (grant) go together"
    if op == "grant_keyword" and effect["duration"] == DURATIONS.index("continuous"):
        return "grant_keyword lasts for a duration (this_turn, until_end_of_...)"
    condition = CONDITIONS[effect["condition"]]
    if condition == "has_keyword" and trigger != "continuous":
        return "the condition has_keyword holds only for continuous rows"
    if condition == "has_keyword" and not 0 <= effect["condition_value"] < len(KEYWORDS):
        return f"has_keyword: condition_value is a keyword index 0..{len(KEYWORDS) - 1}"
    if condition in ("self_level_at_least", "opponent_has_level_at_least") and not (
        2 <= effect["condition_value"] <= 7
    ):  # the levels a card can print (a Digi-Egg 2); 0 or 1 is no level a Digimon has
        return f"{condition}: condition_value is a level, 2..7"
    if effect["max_cost"] >= 0 and target not in _CHOOSE:
        return "max_cost bounds a chosen Digimon (a choose_* target)"
    if effect["burst"] and not (trigger == "main" and where == "main" and kind == "digimon"):
        return "burst (<Digi-Burst N>) is the cost of a Digimon's activated [Main] row"
    optional = effect["flags"] & 1 << EFFECT_FLAGS.index("optional")
    if effect["flags"] & 1 << EFFECT_FLAGS.index("cost_suspend_self") and (
        kind not in ("digimon", "tamer") or where != "main" or not optional
    ):
        return (
            "cost_suspend_self: a Digimon's or Tamer's own optional row (you may suspend it to ...)"
        )
    if optional and trigger in ("continuous", "branch"):
        return f"a {trigger} row is not optional (only a triggered or [Main] row may be declined)"
    if op == "add_self_to_hand" and where != "security":
        return "add_self_to_hand moves a checked security card (a security row)"
    if op == "play_self" and kind not in ("digimon", "tamer"):
        return "only a Digimon or Tamer plays itself"
    if op == "play_self_after_battle" and (where != "security" or kind != "digimon"):
        return "play_self_after_battle is a Digimon card's security row"
    if (op == "digivolve_into") != bool(effect.get("name_is")):
        return "digivolve_into and the card name it digivolves into (name_is) go together"
    if op == "digivolve_into" and effect["window"] != WINDOWS.index("your_turn"):
        return "digivolve_into is in force in your turn only (window: your_turn)"
    if op == "digivolve_into" and (where != "main" or kind != "digimon"):
        return "digivolve_into is a Digimon's own continuous row (where: main)"
    if op == "digivolve_into" and not 0 <= effect["amount"] <= 20:
        return "digivolve_into: amount is the memory cost, 0..20"
    budget = effect.get("max_total_dp", -1)  # a row written before the field: none (-1)
    if budget == 0:  # a Digimon at 0 DP is deleted by rules processing (G11): none fits in 0
        return "max_total_dp is a budget above 0 DP (-1: none)"
    if budget >= 0 and (op != "delete" or target not in _CHOOSE):
        return "max_total_dp bounds the Digimon a delete row chooses (a choose_* target)"
    if budget >= 0 and not effect["flags"] & 1 << EFFECT_FLAGS.index("up_to"):
        return "max_total_dp picks any number of Digimon: it needs the flag up_to"
    if op == "reveal_add" and not 1 <= effect["count"] <= effect["amount"] <= MAX_REVEAL:
        return f"reveal_add needs 1 <= count <= amount <= {MAX_REVEAL}"
    if op == "choose_one" and not 2 <= effect["count"] <= MAX_BRANCHES:
        return f"choose_one chooses among 2..{MAX_BRANCHES} branch rows (count)"
    if trigger == "branch" and op == "choose_one":
        return "a branch row cannot itself choose (no nested choose_one)"
    if effect["kinds"] and op not in _FILTERED:
        return f"kinds filters the cards of {list(_FILTERED)} only"
    if effect["colors"] and op not in _FILTERED and target not in _CHOOSE:
        return (
            f"colors filters the cards of {list(_FILTERED)} or the Digimon a choose_* target "
            "chooses only"
        )
    if effect["min_level"] >= 0 and op not in _FILTERED:
        return f"min_level bounds the Digimon cards of {list(_FILTERED)} only"
    if effect.get("name_has") and op not in _FILTERED:
        return f"name_has filters the cards of {list(_FILTERED)} only"
    if effect["play_costs"] and op not in _FILTERED:
        return f"play_costs filters the cards of {list(_FILTERED)} only"
    if effect["flags"] & 1 << EFFECT_FLAGS.index("no_on_play") and op not in _PLAYS:
        return f"no_on_play is a flag of {list(_PLAYS)} only"
    if 0 <= effect["max_level"] < effect["min_level"]:
        return f"min_level {effect['min_level']} above max_level {effect['max_level']}"
    if op in _PLAYS and effect["kinds"] & ~(
        1 << KINDS.index("digimon") | 1 << KINDS.index("tamer")
    ):
        return f"{op} plays Digimon or Tamers (kinds)"
    return None


def branch_problem(effects: list[dict]) -> str | None:
    """Why a card's rows break the choose_one layout: the ``count`` rows after a choose_one row
    have the trigger ``branch`` (and the same ``where``), and every branch row follows one; or
    the ``gates_next`` layout: the gated row follows with the same ``where`` and ``trigger``, and
    the gating row chooses (a choose_* target) so that "if you do" can be told."""
    gates, elses = (1 << EFFECT_FLAGS.index(f) for f in ("gates_next", "else_next"))
    declinable = (1 << EFFECT_FLAGS.index("optional")) | (1 << EFFECT_FLAGS.index("up_to"))
    for r, effect in enumerate(effects):
        if not effect["flags"] & (gates | elses):
            continue
        flag = "gates_next" if effect["flags"] & gates else "else_next"
        if effect["flags"] & gates and effect["flags"] & elses:
            return f"row {r}: gates_next and else_next together (the next row always resolves?)"
        after = effects[r + 1] if r + 1 < len(effects) else None
        if after is None or (after["where"], after["trigger"]) != (
            effect["where"],
            effect["trigger"],
        ):
            return f"row {r}: {flag} needs a next row with the same where and trigger"
        if TARGETS[effect["target"]] not in _CHOOSE or OPS[effect["op"]] == "choose_one":
            return f"row {r}: {flag} is set on a row that chooses a Digimon (choose_* target)"
        if flag == "else_next" and effect["flags"] & declinable:
            # A declined choice is decided after the next row was kept or dropped.
            return f"row {r}: else_next on a row the player may decline (optional, up_to)"
    owned = set()
    for r, effect in enumerate(effects):
        if OPS[effect["op"]] != "choose_one":
            continue
        for b in range(r + 1, r + 1 + effect["count"]):
            if b >= len(effects) or TRIGGERS[effects[b]["trigger"]] != "branch":
                return f"row {r}: choose_one needs {effect['count']} branch rows after it"
            if effects[b]["where"] != effect["where"]:
                return f"row {b}: a branch row has the where of its choose_one row"
            owned.add(b)
    for r, effect in enumerate(effects):
        if TRIGGERS[effect["trigger"]] == "branch" and r not in owned:
            return f"row {r}: a branch row follows a choose_one row"
    return None
