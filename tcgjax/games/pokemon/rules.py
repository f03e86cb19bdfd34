"""Rules of the Pokémon TCG: board, setup, turn structure, attacks, Knock Outs, Special Conditions.

Pure rules (no RL import). Sources: the official Pokémon TCG rulebook (its rules cited as R-numbers
below) and the spec decisions P1-P6 (this game's README says where each applies).

**Scope.** This module holds every rule of the game; the effect rows of cards (Trainers, the extra
effects of attacks, Abilities) are run by the effect interpreter in ``effects.py``, which an
attack, a played Trainer or an activated Ability hands its card's rows to. The game is registered
as the env ``pokemon`` (``env.py``).

**Board.** Each player owns 60 cards (card indices: player 1's deck list expanded in card-id order,
then player 2's) and these zones (E1 ids ``<zone>_<player>``):

* ``deck`` (hidden, ordered: the top is the last position), ``hand`` (its owner sees it),
  ``discard`` (public, ordered), ``prizes`` (hidden);
* ``active`` and ``bench1`` … ``bench5``: one *slot* each (P1: slot 0 the Active Pokémon, 1-5 the
  Bench), a public ordered pile: the Pokémon card, the cards it evolved from below it, and the
  attached Energy. The slot's *Pokémon* is its topmost Pokémon card.

One shared zone, ``processing``, holds a Trainer while its effect rows resolve.

Per slot (``[2, 6]``, player-major, slot 0 the Active): the damage on the Pokémon and the turn it
came into play or last evolved. Per player: the Special Conditions of the Active Pokémon (only an
Active Pokémon has them: moving to the Bench removes them, R13/R16): the rotated one (none, Asleep,
Confused, Paralyzed: a new one replaces the old) and the Poisoned and Burned markers.

**Setup** (R1, R2, R4, R5): each deck is shuffled with the game's key and each player draws 7. A
player without a Basic Pokémon mulligans (reveals, shuffles the hand back, draws 7) until one
appears; both players do so independently, so the rounds where both mulliganed cancel out (R4) and
the player who mulliganed fewer times may draw up to the difference (a decision: ``yes`` draws one
more, ``done`` stops). The first player is drawn from the key (the rules let the winner of a coin
flip choose; a random first player is the issue's wording). Then the first player, then the second,
puts a Basic Pokémon face down as their Active (``play[d]``) and up to 5 on their Bench
(``play[d]``, then ``done``); face down means a visibility override (seen by the owner only)
until both are done. Then each player sets aside the top 6 cards of their deck as Prize cards,
every Pokémon is turned face up, and the first player's first turn begins.

**Turn** (R1, R5, R7, R10): draw 1 card (every turn, the first player's first turn included; a
player who cannot draw loses: ``deck_out``), then any number of: play a Basic Pokémon to the Bench
(at most 5), evolve (``evolve[d, slot]``: a Stage 1 on the Pokémon named by its ``evolves_from``, a
Stage 2 on its Stage 1; not on either player's first turn, not on a Pokémon that came into play or
evolved this turn; damage and attachments stay, Special Conditions go), attach one Energy card from
the hand per turn, retreat once per turn (not while Asleep or Paralyzed; the player chooses the
attached Energy to discard, one ``select_card[d]`` at a time, until the units discarded cover the
retreat cost), and finally attack (``attack[i]``; not on the first player's first turn, not while
Asleep or Paralyzed; the cost is paid by the attached Energy's units, Colorless by any type) or
end the turn (``end_turn``). Attacking ends the turn.

**Damage** (R8, R9): the printed base damage, plus the attacker's special Energy damage modifiers
(Double Turbo Energy: -20) when it is above 0, then Weakness (× the multiplier when the attacker's
type is the defender's weakness) and Resistance (+ the printed negative value), never below 0;
put on the defending Active Pokémon.

**Knock Outs and Prizes** (R15, the cards' rule texts): a Pokémon whose damage reaches its HP is
Knocked Out: its pile goes to its owner's discard pile and the opponent takes as many Prize cards
as the card gives (1; 2 for ex and V; 3 for VMAX), the top ones (they are face down: no choice
matters). A player whose Active Pokémon was Knocked Out promotes one of their Benched Pokémon
(``select_slot``); one who has no Benched Pokémon has no Pokémon in play and loses.

**Between turns**: Knock Outs of the attack → promotions → Pokémon Checkup (R11, R12: Poisoned 1
counter; Burned 2 counters, then a flip, heads removes it; Asleep: a flip, heads wakes it;
Paralyzed is removed from the Pokémon of the player whose turn just ended) → its Knock Outs →
promotions → the next turn. Coin flips come from the key of the ``apply`` call.

**Winning** (R15, R1): taking the last Prize card; the opponent having no Pokémon in play after a
Knock Out; the opponent unable to draw at the start of their turn. When both players meet a
condition at once, the one who meets more wins; an equal count is a draw (``simultaneous``: the
official rules play a Sudden Death game, which this engine does not). ``max_turns`` ends the
game as a draw with reason ``turn_limit`` (the env truncates it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from tcgjax.core import zones
from tcgjax.core.actions import ActionLayout
from tcgjax.core.board import Board, BoardLayout, draw_matchup, new_board, set_turn
from tcgjax.core.cards import CardRegistry
from tcgjax.core.decks import check_pairs
from tcgjax.core.effects import EffectQueue, Selection
from tcgjax.core.errors import FIRST_GAME_CODE, ConfigError, RuleError
from tcgjax.core.invariants import Invariant, InvariantTable
from tcgjax.core.primitives import in_force
from tcgjax.core.tree import tree_where, when_any, when_some
from tcgjax.games.pokemon.cards import (
    KINDS,
    MAX_ATTACKS,
    OPS,
    STAGES,
    TYPES,
    load_cards,
)
from tcgjax.games.pokemon.decks import Deck
from tcgjax.games.pokemon.effects import (
    ABILITY,
    ATTACK,
    MODIFIER_OPS,
    NO_EFFECT,
    OP,
    SELECTION_STAGES,
    STADIUM,
    TARGET,
    TRAINER,
    WHERE_ABILITY,
    WHERE_PLAY,
    WHERE_STADIUM,
    Interpreter,
    effect_fields,
)

__all__ = [
    "DECK_SIZE",
    "HAND_AT_START",
    "PRIZES",
    "NUM_SLOTS",
    "PLAYER_ZONES",
    "PHASES",
    "ROTATED",
    "END_REASONS",
    "RULE_ERRORS",
    "CODES",
    "PokemonState",
    "PokemonRules",
    "build_actions",
]

DECK_SIZE = 60
HAND_AT_START = 7
PRIZES = 6
NUM_SLOTS = 6  # P1: slot 0 the Active Pokémon, 1-5 the Bench
BENCH_SIZE = NUM_SLOTS - 1
SLOT_ZONES = ("active",) + tuple(f"bench{i}" for i in range(1, NUM_SLOTS))
PLAYER_ZONES = ("deck", "hand", "discard", "prizes", "looking", *SLOT_ZONES)
FIRST_SLOT_ZONE = PLAYER_ZONES.index("active")
SHARED_ZONES = ("processing", "stadium")
PHASES = (
    "mulligan_draw",  # a player may draw 1 card per extra mulligan of the opponent (R2, R4)
    "setup_active",  # put a Basic Pokémon face down as the Active Pokémon
    "setup_bench",  # put up to 5 Basic Pokémon face down on the Bench, then done
    "main",
    "retreat_payment",  # choose the attached Energy to discard for the retreat cost
    "promote",  # choose a Benched Pokémon to become the Active Pokémon
    "select",  # an effect row waits on a choice (effects.py)
    "game_over",
)
PHASE = {name: i for i, name in enumerate(PHASES)}
ROTATED = ("none", "asleep", "confused", "paralyzed")  # the rotated Special Conditions (R13)
ASLEEP, CONFUSED, PARALYZED = 1, 2, 3
END_REASONS = (
    "none",
    "prizes",  # the winner took their last Prize card
    "no_pokemon",  # the loser had no Pokémon in play after a Knock Out
    "deck_out",  # the loser could not draw at the start of their turn
    "simultaneous",  # both met a win condition, as many each: a draw
    "illegal_action",
    "turn_limit",  # max_turns reached: a draw (truncation)
)
END = {name: i for i, name in enumerate(END_REASONS)}
NO_WINNER = -1
DRAW = 2  # winner value of a drawn game
CONFUSION_DAMAGE = 30  # a Confused Pokémon that flips tails puts 3 counters on itself (R13)
POISON_DAMAGE, BURN_DAMAGE = 10, 20  # Pokémon Checkup (R11, R12)
# Action kinds, in layout order.
KINDS_OF_ACTION = (
    "play",
    "evolve",
    "attach",
    "ability",
    "tool_ability",
    "stadium",
    "retreat",
    "attack",
    "select_card",
    "select_slot",
    "yes",
    "done",
    "end_turn",
)
# When the promotions are over: the Pokémon Checkup then the next turn, the next turn, or (a
# Knock Out within a turn, e.g. an HP bonus lost while paying a retreat cost) the same turn goes on.
THEN_CHECKUP, THEN_NEXT_TURN, THEN_CONTINUE = 0, 1, 2

RULE_ERRORS = (
    RuleError("game_over", "the game is over: no action is legal"),
    RuleError("wrong_phase", "this action is not one of the current phase's"),
    RuleError("not_in_hand", "no card of that definition in the player's hand"),
    RuleError("not_a_basic", "only a Basic Pokémon can be put into play from the hand"),
    RuleError("bench_full", "the Bench already holds 5 Pokémon"),
    RuleError("energy_is_attached", "an Energy card is attached (attach[d, slot]), not played"),
    RuleError("evolution_is_evolved", "an Evolution card is played by evolve[d, slot]"),
    RuleError("supporter_done", "the player already played a Supporter this turn"),
    RuleError("first_turn_supporter", "the player who goes first plays no Supporter on turn 1"),
    RuleError("no_effect", "the Trainer could do nothing now (no target, no card to find)"),
    RuleError("empty_slot", "there is no Pokémon in that slot"),
    RuleError("not_an_evolution", "the card is not a Stage 1 or Stage 2 Pokémon"),
    RuleError("wrong_evolution", "the card does not evolve from that Pokémon (evolves_from)"),
    RuleError("first_turn_evolution", "no Pokémon evolves on either player's first turn"),
    RuleError(
        "new_this_turn", "that Pokémon came into play or evolved this turn: it cannot evolve"
    ),
    RuleError("not_energy", "the card is not an Energy card nor a Pokémon Tool"),
    RuleError("energy_done", "the player already attached an Energy card this turn"),
    RuleError("no_ability", "that Pokémon has no Ability to use"),
    RuleError("ability_used", "that Pokémon's Ability was already used this turn"),
    RuleError(
        "ability_cost",
        "the Ability needs a card the hand does not hold (the card its cost discards or the "
        "Energy it attaches)",
    ),
    RuleError("retreat_done", "the player already retreated this turn"),
    RuleError("retreat_condition", "an Asleep or Paralyzed Pokémon cannot retreat"),
    RuleError("retreat_cost", "the Active Pokémon has too little Energy for its retreat cost"),
    RuleError("no_such_attack", "the Active Pokémon has no attack with that index"),
    RuleError("first_turn_attack", "the player who goes first cannot attack on their first turn"),
    RuleError("attack_condition", "an Asleep or Paralyzed Pokémon cannot attack"),
    RuleError("cannot_attack", "an attack's effect keeps this Pokémon from attacking this turn"),
    RuleError("attack_cost", "the attached Energy does not pay the attack's cost"),
    RuleError("not_attached", "no Energy card of that definition is attached to the Active"),
    RuleError("not_own_bench", "promote a Pokémon from your own Bench (slots 1-5)"),
    RuleError("no_cards_left", "the deck is empty: nothing to draw"),
    RuleError("not_a_choice", "not a valid choice for the effect being resolved"),
    RuleError("must_choose", "this choice is not optional while a valid one exists"),
    RuleError("ability_not_active", "that Ability can be used only while its Pokémon is Active"),
    RuleError("tool_is_attached", "a Pokémon Tool is attached (attach[d, slot]), not played"),
    RuleError("tool_done", "that Pokémon already has a Pokémon Tool attached"),
    RuleError("stadium_done", "the player already played a Stadium this turn"),
    RuleError("same_stadium", "a Stadium with the same name is already in play"),
    RuleError("no_stadium", "no Stadium with an effect to use is in play"),
    RuleError("stadium_used", "the player already used the Stadium's effect this turn"),
    RuleError(
        "ability_name_used",
        "one of the player's Pokémon already used an Ability of that name this turn (its card "
        "allows one a turn)",
    ),
    RuleError("no_tool_ability", "that Pokémon holds no Pokémon Tool that gives an Ability"),
    RuleError("not_pokemon_v", "only a Pokémon V (a V, VSTAR or VMAX) may use that Tool's Ability"),
    RuleError("vstar_used", "the player already used a VSTAR Power this game (one a game)"),
    RuleError(
        "attack_locked",
        "an attack's effect keeps this Pokémon from using that attack this turn (Memory Skip)",
    ),
    RuleError(
        "ability_no_effect",
        "the Ability could do nothing now (no card to attach, no Pokémon that could take it)",
    ),
)
CODES = {e.name: FIRST_GAME_CODE + i for i, e in enumerate(RULE_ERRORS)}

_KIND = {name: i for i, name in enumerate(KINDS)}
_COLORLESS = TYPES.index("colorless")


def build_actions(num_definitions: int) -> ActionLayout:
    """The action layout for a registry of ``num_definitions`` definitions (0 = padding).

    Cards are named by *definition*, not hand position: cards of one definition in a hand are
    interchangeable, so ``play[d]``, ``evolve[d * 6 + slot]``, ``attach[d * 6 + slot]`` and
    ``select_card[d]`` are exact whatever the hand size. ``select_slot[k]``: the actor's slots
    0-5, then the opponent's 0-5. ``retreat[b]`` swaps the Active with Bench slot ``b + 1``."""
    d = num_definitions
    return ActionLayout(
        [
            ("play", d),
            ("evolve", (d, NUM_SLOTS)),  # card definition x the actor's slot
            ("attach", (d, NUM_SLOTS)),
            ("ability", NUM_SLOTS),
            ("tool_ability", NUM_SLOTS),  # the Ability a Pokémon's Tool gives (Forest Seal Stone)
            ("stadium", 1),  # use the effect of the Stadium in play (Artazon)
            ("retreat", BENCH_SIZE),
            ("attack", MAX_ATTACKS),
            ("select_card", d),
            ("select_slot", (2, NUM_SLOTS)),  # the actor's slots, then the opponent's
            ("yes", 1),
            ("done", 1),
            ("end_turn", 1),
        ]
    )


@struct.dataclass
class PokemonState:
    """Rules state of one game (shapes for one game; ``[2, 6]`` is player-major, slot 0 Active).

    Attributes:
      board: the core ``Board`` (zones, turn number, active player, phase).
      damage: int16[2, 6], damage on each slot's Pokémon (0 when empty).
      since_turn: int16[2, 6], the turn its Pokémon came into play or last evolved (0 = setup).
      rotated: int8[2], the Active Pokémon's rotated condition (``ROTATED``).
      poisoned, burned: bool[2], the Active Pokémon's markers.
      energy_attached, supporter_played, retreated: bool[], this turn's once-per-turn actions.
      stadium_played, stadium_used: bool[], the turn's player played a Stadium / used the effect
        of the Stadium in play this turn (each once a turn).
      ko_by_attack: bool[2], a Pokémon of that player was Knocked Out by attack damage this turn.
      ko_last_turn: bool[2], ... during the opponent's last turn (for the next stage's effects).
      retreat_to: int8[], the Bench slot a paying retreat goes to (1-5; 0 when none).
      retreat_units_left: int8[], Energy units still to discard for the retreat cost.
      must_promote: bool[2], the player's Active slot is empty and they must promote.
      promote_then: int8[], ``THEN_CHECKUP``, ``THEN_NEXT_TURN`` or ``THEN_CONTINUE``: what
        follows the promotions.
      mulligans: int8[2], how many mulligans each player took.
      bonus_draws: int8[2], extra cards the player may still draw for the opponent's mulligans.
      placed: bool[2], the player finished setting up their Pokémon.
      turn_ending: bool[], transient within ``apply``: the turn ends after this action.
      queue, selection: the effect rows waiting and the choice one waits on (core records).
      effect_kind, effect_player, effect_card, effect_slot, attack_index: the activation in
        progress (none / attack / Trainer / Ability / Stadium; its player, card, slot and attack).
      evolved_card, evolved_slot: the Stage 2 a Trainer's Rare Candy put into play while it
        resolves (-1 none): its on-evolve Ability runs when the Trainer is done.
      effect_evolved: bool[6], the activation's player's Pokémon evolved by it so far
        (``evolve_from_deck``: each chosen Pokémon evolves once); all false with no activation.
      coin: int8[], the activation's coin (-1 not flipped, 0 tails, 1 heads).
      previous: bool[], the last row did something (the ``previous`` gate).
      bonus_damage: int16[], damage modifiers so far; does_nothing, damage_dealt: bool[].
      ability_used: bool[2, 6], the Pokémon used its Ability this turn.
      abilities_used_by_name: bool[K], the turn's player used an Ability of the k-th name that
        allows one use a turn among all their Pokémon (``one_by_name``; K from the registry).
      vstar_used: bool[2], the player used their one VSTAR Power of the game.
      cannot_attack_turn, protected_turn, reduced_turn: int16[2, 6], the turn until which the
        Pokémon can't attack / is protected from attack effects / takes less damage from attacks
        (0 = none).
      locked_attack: int8[2, 6], locked_turn: int16[2, 6]: the Pokémon can't use its attack
        ``attack[locked_attack]`` until the end of turn ``locked_turn`` (0 = none; Memory Skip).
      first_player: int8[].
      deck_pair: int8[], the game's matchup: an index into ``PokemonRules.pairs`` (0 with one).
      winner: int8[], -1 while the game goes on, 2 for a draw.
      end_reason: int8[], index into ``END_REASONS``.
    """

    board: Board
    damage: jax.Array
    since_turn: jax.Array
    rotated: jax.Array
    poisoned: jax.Array
    burned: jax.Array
    energy_attached: jax.Array
    supporter_played: jax.Array
    retreated: jax.Array
    stadium_played: jax.Array
    stadium_used: jax.Array
    ko_by_attack: jax.Array
    ko_last_turn: jax.Array
    retreat_to: jax.Array
    retreat_units_left: jax.Array
    must_promote: jax.Array
    promote_then: jax.Array
    mulligans: jax.Array
    bonus_draws: jax.Array
    placed: jax.Array
    turn_ending: jax.Array
    queue: EffectQueue
    selection: Selection
    effect_kind: jax.Array
    effect_player: jax.Array
    effect_card: jax.Array
    effect_slot: jax.Array
    evolved_card: jax.Array
    evolved_slot: jax.Array
    effect_evolved: jax.Array
    attack_index: jax.Array
    coin: jax.Array
    previous: jax.Array
    bonus_damage: jax.Array
    does_nothing: jax.Array
    damage_dealt: jax.Array
    ability_used: jax.Array
    abilities_used_by_name: jax.Array
    vstar_used: jax.Array
    cannot_attack_turn: jax.Array
    protected_turn: jax.Array
    reduced_turn: jax.Array
    locked_attack: jax.Array
    locked_turn: jax.Array
    first_player: jax.Array
    deck_pair: jax.Array
    winner: jax.Array
    end_reason: jax.Array


def build_layout(cards: CardRegistry) -> BoardLayout:
    """The board layout: the player zones of both players (player-major), then the shared ones."""
    reg = zones.ZoneTypeRegistry()
    reg.register(zones.ZoneType("deck", ordered=True, visibility="hidden"))
    reg.register(zones.ZoneType("hand", ordered=True, visibility="owner"))
    reg.register(zones.ZoneType("discard", ordered=True, visibility="public"))
    reg.register(zones.ZoneType("prizes", ordered=True, visibility="hidden", max_size=PRIZES))
    # Cards a player looks at from their deck (Great Ball, Rika, Electric Generator).
    reg.register(zones.ZoneType("looking", ordered=True, visibility="owner"))
    for name in SLOT_ZONES:
        reg.register(zones.ZoneType(name, ordered=True, visibility="public"))
    reg.register(zones.ZoneType("processing", ordered=True, visibility="public"))
    # The Stadium in play (rules "Stadium cards"): one for both players, public.
    reg.register(zones.ZoneType("stadium", ordered=True, visibility="public", max_size=1))
    return BoardLayout(
        num_players=2,
        zone_types=reg,
        zones=tuple((kind, p) for p in range(2) for kind in PLAYER_ZONES)
        + tuple((kind, None) for kind in SHARED_ZONES),
        cards=cards,
        num_cards=2 * DECK_SIZE,
        phases=PHASES,
    )


def zone_of(name: str, player) -> jax.Array:
    """Zone index of the player zone ``name`` of ``player`` (traced or not)."""
    return jnp.asarray(player, jnp.int32) * len(PLAYER_ZONES) + PLAYER_ZONES.index(name)


def slot_zone(player, slot) -> jax.Array:
    """Zone index of slot ``slot`` (0 Active, 1-5 Bench) of ``player``."""
    return (
        jnp.asarray(player, jnp.int32) * len(PLAYER_ZONES)
        + FIRST_SLOT_ZONE
        + jnp.asarray(slot, jnp.int32)
    )


STADIUM_ZONE = 2 * len(PLAYER_ZONES) + SHARED_ZONES.index("stadium")

# Flat slot (player * 6 + slot) of every zone, -1 for the zones that are not slots.
ZONE_SLOT = np.full(2 * len(PLAYER_ZONES) + len(SHARED_ZONES), -1, np.int32)
for _p in range(2):
    for _s in range(NUM_SLOTS):
        ZONE_SLOT[_p * len(PLAYER_ZONES) + FIRST_SLOT_ZONE + _s] = _p * NUM_SLOTS + _s
ZONE_SLOT.setflags(write=False)


class PokemonRules(Interpreter):
    """The static rules object for its decks: layout, action layout and card tables.

    Methods are pure functions of the state (``jit``/``vmap``-safe); ``validate`` is host-side.

    Args:
      decks: the deck pool (:class:`~tcgjax.games.pokemon.decks.Deck`, validated against
        ``cards``); with ``pairs`` left out, exactly two: the first player's and the second's.
      cards: the card registry (default: the shipped card file).
      max_turns: the game ends in a draw (``turn_limit``) when this turn would start.
      pairs: the matchups, ``(deck of seat 0, deck of seat 1)`` as indices into ``decks``;
        each game draws one uniformly in :meth:`init` (its index is ``state.deck_pair``).
        Default ``((0, 1),)``: one matchup, and ``init`` draws nothing for it (the same games as
        before pairs existed).
    """

    def __init__(
        self,
        decks: Sequence[Deck],
        cards: CardRegistry | None = None,
        max_turns: int = 200,
        pairs: Sequence[tuple[int, int]] | None = None,
    ):
        self.cards = load_cards() if cards is None else cards
        self.layout = build_layout(self.cards)
        self.actions = build_actions(len(self.cards))
        self.max_turns = int(max_turns)
        self.decks = tuple(decks)
        sized = all(len(d.cards) == DECK_SIZE for d in self.decks)
        if pairs is None and (len(self.decks) != 2 or not sized):
            raise ConfigError(
                f"decks: two decks of {DECK_SIZE} cards, one per seat (a larger pool needs "
                f"pairs), got {self.decks!r}"
            )
        if not self.decks or not sized:
            raise ConfigError(
                f"decks: a pool of decks of {DECK_SIZE} cards each, got {self.decks!r}"
            )
        self.pairs = check_pairs("pokemon", pairs, len(self.decks))
        # pair_definitions[k]: the 120 cards' definitions of matchup k (seat 0's deck first, each
        # deck sorted), the board's `definition` at the start of a game of that matchup.
        self.pair_definitions = np.asarray(
            [
                [self.cards.index(c) for d in pair for c in sorted(self.decks[d].cards)]
                for pair in self.pairs
            ],
            np.int16,
        )
        self.card_definitions = self.pair_definitions[0]
        self._tables()

    def seat_deck(self, pair: int, player: int) -> Deck:
        """The deck ``player`` (0 or 1) plays in a game of matchup ``pair`` (host-side)."""
        return self.decks[self.pairs[int(pair)][int(player)]]

    def _tables(self) -> None:
        c = self.cards.numpy
        n = len(self.cards)
        kind = c["kind"].astype(np.int32)
        stage = c["stage"].astype(np.int32)
        self.kind = jnp.asarray(kind)
        self.is_pokemon = jnp.asarray(kind == _KIND["pokemon"])
        self.is_basic = jnp.asarray(stage == STAGES.index("basic"))
        self.is_evolution = jnp.asarray(stage >= STAGES.index("stage1"))
        energy = (kind == _KIND["basic_energy"]) | (kind == _KIND["special_energy"])
        self.is_energy = jnp.asarray(energy)
        self.is_tool = jnp.asarray(kind == _KIND["tool"])
        self.is_stadium = jnp.asarray(kind == _KIND["stadium"])
        self.is_trainer = jnp.asarray(~energy & (kind != _KIND["pokemon"]) & (np.arange(n) > 0))
        self.hp = jnp.asarray(c["hp"].astype(np.int32))
        self.type = jnp.asarray(c["type"].astype(np.int32))  # OPTIONAL_TYPE index
        self.weakness = jnp.asarray(c["weakness"].astype(np.int32))
        self.weakness_multiplier = jnp.asarray(c["weakness_multiplier"].astype(np.int32))
        self.resistance = jnp.asarray(c["resistance"].astype(np.int32))
        self.resistance_value = jnp.asarray(c["resistance_value"].astype(np.int32))
        self.retreat_cost = jnp.asarray(c["retreat"].astype(np.int32))
        self.prizes = jnp.asarray(c["prizes"].astype(np.int32))
        self.provides = jnp.asarray(c["provides"].astype(np.int32))  # [N, 11]
        self.units = jnp.asarray(c["provides"].sum(axis=1).astype(np.int32))
        self.damage_modifier = jnp.asarray(c["damage_modifier"].astype(np.int32))
        self.num_attacks = jnp.asarray(c["attacks.num_rows"].astype(np.int32))
        self.attack_cost = jnp.asarray(c["attacks.cost"].astype(np.int32))  # [N, 4, 11]
        self.attack_damage = jnp.asarray(c["attacks.damage"].astype(np.int32))  # [N, 4]
        # evolves_onto[e, b]: card e evolves from card b (by name, R "Evolution").
        names = [
            self.cards.definition(i)["name"] if k else "" for k, i in enumerate(self.cards.ids)
        ]
        onto = np.zeros((n, n), bool)
        for e, eid in enumerate(self.cards.ids):
            if e == 0 or stage[e] < STAGES.index("stage1"):
                continue
            parent = self.cards.definition(eid)["evolves_from"]
            for b in range(1, n):
                onto[e, b] = kind[b] == _KIND["pokemon"] and names[b] == parent
        self.evolves_onto = jnp.asarray(onto)
        # One id per card name (0 for padding): two Stadiums of one name can't replace each other.
        distinct = {name: i for i, name in enumerate(sorted(set(names) - {""}), start=1)}
        self.name_id = jnp.asarray(np.asarray([distinct.get(x, 0) for x in names], np.int32))
        # candy_onto[e, b]: Stage 2 e evolves from Basic b through a Stage 1 (Rare Candy).
        through = (onto.astype(np.int32) @ onto.astype(np.int32)) > 0
        is_stage2 = stage == STAGES.index("stage2")
        is_basic = stage == STAGES.index("basic")
        self.candy_onto = jnp.asarray(through & is_stage2[:, None] & is_basic[None, :])
        self._effect_tables()

    # -- derived views -----------------------------------------------------------------------------

    def code(self, name: str) -> int:
        return CODES[name]

    def card_slot(self, board: Board) -> jax.Array:
        """Flat slot (player * 6 + slot) of every card, -1 off the slots. Returns int32[C]."""
        return jnp.asarray(ZONE_SLOT)[board.zone.astype(jnp.int32)]

    def slot_view(self, state: PokemonState) -> dict[str, jax.Array]:
        """What the rules read off the slots (:meth:`_slot_view`), computed once per board: a
        step asks for it some 50 times (legality, choices, damage, Knock Outs), almost always of
        the same board, and each would otherwise be traced again (about a third of the step's
        jaxpr). It reads only the board's zones, positions and definitions, so the view of the
        same three arrays in the same trace is the same view; the memo keeps the last few,
        holding the arrays it is keyed by (so no key is reused while it lives)."""
        from jax._src import core as jax_core  # the current trace: a view never leaves its own

        board = state.board
        key = (id(jax_core.trace_ctx.trace), id(board.zone), id(board.position),
               id(board.definition))  # fmt: skip
        memo = self.__dict__.setdefault("_slot_view_memo", [])
        for entry_key, _, view in memo:
            if entry_key == key:
                return view
        view = self._slot_view(state)
        memo.append((key, (jax_core.trace_ctx.trace, board.zone, board.position, board.definition),
                     view))  # fmt: skip
        del memo[:-8]
        return view

    def _slot_view(self, state: PokemonState) -> dict[str, jax.Array]:
        """What the rules read off the slots, all ``[2, 6]`` (player-major) unless noted.

        ``card`` (the slot's top Pokémon card, -1 empty), ``definition`` (its definition, 0 empty),
        ``occupied``, ``hp`` (maximum HP), ``units`` int32[2, 6, 11] (Energy units per type
        provided by the attached Energy), ``damage_modifier`` (sum over the attached special
        Energy), ``energy_cards`` int32[2, 6, N] (attached Energy cards per definition), ``tool``
        (a Pokémon Tool is attached), ``tool_damage`` and ``tool_damage_behind`` (what its Tool
        adds to the damage its attacks do to the opponent's Active Pokémon: always / while its
        player has more Prize cards left), ``tool_definition`` (the definition of its Tool, 0
        when none)."""
        board = state.board
        num_cards = board.zone.shape[0]
        slot = self.card_slot(board)
        definition = board.definition.astype(jnp.int32)
        member = slot[None, :] == jnp.arange(2 * NUM_SLOTS)[:, None]  # [12, C]
        pokemon = member & self.is_pokemon[definition][None, :]
        score = jnp.where(
            pokemon, board.position.astype(jnp.int32)[None, :] * 256 + jnp.arange(num_cards), -1
        )
        best = jnp.max(score, axis=1)
        card = jnp.where(best >= 0, best % 256, -1)
        top_def = jnp.where(card >= 0, definition[jnp.maximum(card, 0)], 0)
        # Attached Energy per slot and definition: one scatter of the C cards (an integer
        # [12, C] x [C, N] product cost ~20x more under vmap on the CPU); the sums over N as
        # float32 products (exact: small integers).
        # Energy and Pokémon Tools in one scatter (a definition is one or the other).
        attached = self.is_energy[definition] | self.is_tool[definition]
        attached_slot = jnp.where(attached, slot, -1)  # -1: counted nowhere
        attached_cards = zones.grouped_definition_counts(
            board, attached_slot, 2 * NUM_SLOTS, len(self.cards)
        )
        energy_cards = jnp.where(self.is_energy[None, :], attached_cards, 0)
        tools = jnp.where(self.is_tool[None, :], attached_cards, 0).astype(jnp.float32)  # [12, N]
        tool_hp = (tools @ self.tool_table.astype(jnp.float32)).astype(jnp.int32)  # [12, 4]
        # One Tool a Pokémon: the definitions of the attached Tools sum to it (0 when none).
        tool_definition = (tools @ jnp.arange(len(self.cards), dtype=jnp.float32)).astype(jnp.int32)
        counts = energy_cards.astype(jnp.float32)
        units = (counts @ self.provides.astype(jnp.float32)).astype(jnp.int32)
        modifier = (counts @ self.damage_modifier.astype(jnp.float32)).astype(jnp.int32)
        # A passive HP bonus while enough Energy of a type is attached (Orthworm).
        amount, bonus_type, minimum = (self.hp_bonus[top_def, i] for i in range(3))
        typed = jnp.take_along_axis(units, jnp.maximum(bonus_type - 1, 0)[:, None], axis=1)[:, 0]
        hp = self.hp[top_def] + jnp.where((amount > 0) & (typed >= minimum), amount, 0)
        # A Tool's HP bonus: for any holder, or for a Basic one (Bravery Charm).
        hp = hp + tool_hp[:, 0] + jnp.where(self.is_basic[top_def], tool_hp[:, 1], 0)
        shape = (2, NUM_SLOTS)
        return dict(
            card=card.reshape(shape),
            definition=top_def.reshape(shape),
            occupied=(card >= 0).reshape(shape),
            hp=hp.reshape(shape),
            units=units.reshape((*shape, len(TYPES))),
            damage_modifier=modifier.reshape(shape),
            energy_cards=energy_cards.reshape((*shape, len(self.cards))),
            tool=(jnp.sum(tools, axis=1) > 0).reshape(shape),
            tool_definition=tool_definition.reshape(shape),
            tool_damage=tool_hp[:, 2].reshape(shape),
            tool_damage_behind=tool_hp[:, 3].reshape(shape),
        )

    def attack_sources(self, view: dict[str, jax.Array], player) -> tuple[jax.Array, ...]:
        """Where each ``attack[i]`` of ``player``'s Active Pokémon comes from (``view``:
        :meth:`slot_view`): its own attacks first, then those its Pokémon Tool gives (TM:
        Evolution's). Returns ``(definition, index, available)``, each ``[MAX_ATTACKS]``: the
        card whose attack row ``index`` it is (the Pokémon's or its Tool's; int32) and whether
        there is such an attack (bool)."""
        holder = view["definition"][player, 0]
        tool = view["tool_definition"][player, 0]
        i = jnp.arange(MAX_ATTACKS)
        own = i < self.num_attacks[holder]
        definition = jnp.where(own, holder, tool)
        index = jnp.where(own, i, i - self.num_attacks[holder])
        return definition, index, index < self.num_attacks[definition]

    def stadium_card(self, board: Board) -> jax.Array:
        """The Stadium card in play (-1 when none). Returns int32[]."""
        return zones.top_card(board, STADIUM_ZONE)

    def stadium_definition(self, board: Board) -> jax.Array:
        """The definition of the Stadium in play (0 when none). Returns int32[]."""
        card = self.stadium_card(board)
        return jnp.where(card >= 0, board.definition[jnp.maximum(card, 0)], 0).astype(jnp.int32)

    def retreat_costs(self, state: PokemonState, view: dict[str, jax.Array]) -> jax.Array:
        """The Retreat Cost of each slot's Pokémon now (``view``: :meth:`slot_view` of
        ``state``): printed, less what the Stadium in play takes off the Pokémon it names (Beach
        Court: Basic Pokémon, 1 Colorless less) and what the Pokémon's passive Ability takes off
        while its Energy is attached (Moltres's Flare Float), never below 0. Returns
        int32[2, 6]."""
        definition = view["definition"]
        stadium = self.stadium_definition(state.board)
        named = self.filter_match[self.stadium_retreat_filter[stadium], definition]
        less = jnp.where(named, self.stadium_retreat_less[stadium], 0)
        amount, energy_type, minimum = (self.ability_retreat_less[definition, i] for i in range(3))
        units = view["units"]  # [2, 6, 11]
        typed = jnp.where(
            energy_type > 0,
            jnp.take_along_axis(units, jnp.maximum(energy_type - 1, 0)[..., None], axis=2)[..., 0],
            jnp.sum(units, axis=2),
        )
        less = less + jnp.where(typed >= minimum, amount, 0)
        return jnp.maximum(self.retreat_cost[definition] - less, 0)

    def hand_counts(self, board: Board, player) -> jax.Array:
        """Cards of each definition in ``player``'s hand. Returns int32[N]."""
        in_hand = board.zone == zone_of("hand", player)
        return zones.definition_counts(board, in_hand, len(self.cards))

    def card_of(self, board: Board, zone, definition) -> jax.Array:
        """The topmost card of ``definition`` in ``zone`` (-1 when none). Returns int32[]."""
        num_cards = board.zone.shape[0]
        hit = (board.zone == zone) & (board.definition == definition)
        score = jnp.where(hit, board.position.astype(jnp.int32) * 256 + jnp.arange(num_cards), -1)
        best = jnp.max(score)
        return jnp.where(best >= 0, best % 256, -1)

    def cost_paid(self, units: jax.Array, cost: jax.Array) -> jax.Array:
        """Whether Energy ``units`` (int[..., 11]) pay ``cost`` (int[..., 11]): each typed
        requirement by its own type, Colorless by any unit (a unit pays one symbol)."""
        typed = jnp.arange(len(TYPES)) != _COLORLESS
        enough_typed = jnp.all(~typed | (units >= cost), axis=-1)
        return enough_typed & (jnp.sum(units, axis=-1) >= jnp.sum(cost, axis=-1))

    def trainer_playable(self, state: PokemonState, player) -> jax.Array:
        """bool[N]: a Trainer of that definition could do something now, judged by its first
        row (rules: a card that would do nothing can't be played): a Switch needs a Benched
        Pokémon, a Potion a damaged Pokémon, a Nest Ball room on the Bench, a deck search or
        draw a card in the deck, an Energy from the discard pile such a card and a Benched
        Pokémon, an Energy look a Benched Pokémon of the type, Boss's Orders a Benched Pokémon of
        the opponent, Ultra Ball its cost in other cards of the hand."""
        board = state.board
        view = self.slot_view(state)
        occupied = view["occupied"][player]
        bench = jnp.any(occupied[1:])
        opponent_bench = jnp.any(view["occupied"][1 - player, 1:])
        damaged = jnp.any(occupied & (state.damage[player] > 0))
        deck = zones.zone_count(board, zone_of("deck", player)) > 0
        op = self.trainer_first_op
        f, e = self.row["card_filter"][:, 0], self.row["energy_type"][:, 0]
        max_hp = self.row["max_hp"][:, 0]
        hp_ok = (max_hp[:, None] == 0) | (self.hp[None, :] <= max_hp[:, None])
        match = self.filter_match[f] & self.type_match[e] & hp_ok  # [N, N]: def -> candidates
        in_discard = self.zone_definition_counts(
            board, zone_of("discard", player), 0, 0
        )  # any card, per definition
        discard_ok = (self.match_counts(match, in_discard)) > 0
        # A cost of other cards from the hand (Ultra Ball: discard 2 others): the card itself is
        # in the hand while this is judged, so it does not count toward its own cost.
        in_hand = self.zone_definition_counts(board, zone_of("hand", player), 0, 0)
        others = self.match_counts(match, in_hand) - jnp.diagonal(match).astype(jnp.int32)
        cost_ok = others >= self.row["count"][:, 0]
        # Rare Candy: a Stage 2 in the hand with a Basic it can go on now.
        candy = jnp.any((in_hand > 0)[:, None] & self.candy_targets(state, player))
        target_type = self.row["target_type"][:, 0]
        bench_types = self.type[view["definition"][player, 1:]]  # [5]
        typed_bench = jnp.any(
            occupied[None, 1:]
            & ((target_type[:, None] == 0) | (bench_types[None, :] == target_type[:, None])),
            axis=1,
        )
        return jnp.select(
            [
                op == OP["switch"],
                op == OP["heal"],
                op == OP["search_bench"],
                (op == OP["search_hand"]) | (op == OP["look_take"]) | (op == OP["draw"]),
                (op == OP["discard_to_hand"]) | (op == OP["discard_to_deck"]),
                op == OP["discard_attach_energy"],
                op == OP["look_attach_energy"],
                (op == OP["shuffle_hand_draw"])
                | (op == OP["discard_hand_draw"])
                | (op == OP["hands_to_bottom_draw_prizes"]),
                op == OP["gust"],
                op == OP["discard_from_hand_cost"],
                op == OP["rare_candy"],
            ],
            [
                jnp.broadcast_to(bench, op.shape),
                jnp.broadcast_to(damaged, op.shape),
                jnp.broadcast_to(~jnp.all(occupied[1:]) & deck, op.shape),
                jnp.broadcast_to(deck, op.shape),
                discard_ok,
                discard_ok & bench,
                typed_bench & deck,
                jnp.ones(op.shape, bool),
                jnp.broadcast_to(opponent_bench, op.shape),
                cost_ok,
                jnp.broadcast_to(candy, op.shape),
            ],
            False,
        )

    @staticmethod
    def match_counts(match: jax.Array, counts: jax.Array) -> jax.Array:
        """``match`` (bool[M, N]) times ``counts`` (int32[N]): the matching cards of each row.

        A float32 product (exact for counts this small) is several times cheaper than an
        integer one under ``vmap`` on the CPU. Returns int32[M]."""
        total = match.astype(jnp.float32) @ counts.astype(jnp.float32)
        return total.astype(jnp.int32)

    def ability_cost_payable(self, hand: jax.Array) -> jax.Array:
        """bool[N]: the hand (int32[N] per definition) pays the definition's Ability cost."""
        f, e, count = (self.ability_cost[:, i] for i in range(3))
        match = self.filter_match[f] & self.type_match[e]  # [N, N]
        return self.match_counts(match, hand) >= count

    # -- setup -------------------------------------------------------------------------------------

    def init(self, key: jax.Array) -> PokemonState:
        """A new game: shuffled decks, opening hands with mulligans, first player drawn."""
        layout = self.layout
        cards = [
            (int(d), i // DECK_SIZE, layout.zone_index("deck", i // DECK_SIZE))
            for i, d in enumerate(self.card_definitions)
        ]
        board = new_board(layout, cards, phase=PHASE["setup_active"])
        board, pair, key = draw_matchup(board, self.pair_definitions, key)
        key_first, key_deal = jax.random.split(key)
        first = jax.random.bernoulli(key_first).astype(jnp.int32)

        def deal(carry):
            board, key, mulligans, _ = carry
            key, *keys = jax.random.split(key, 3)
            needs = self._needs_mulligan(board)  # [2]; all True on the first deal
            for p in range(2):
                redo = zones.move_all(layout, board, zone_of("hand", p), zone_of("deck", p)).board
                redo = zones.shuffle(layout, redo, zone_of("deck", p), keys[p]).board
                redo = zones.draw_n(
                    layout, redo, zone_of("deck", p), zone_of("hand", p), HAND_AT_START
                ).board
                board = tree_where(needs[p], redo, board)
            return board, key, mulligans + needs.astype(jnp.int8), None

        def needs_any(carry):
            return jnp.any(self._needs_mulligan(carry[0]))

        # The first deal is a "mulligan" of an empty hand: it counts, so subtract it.
        board, _, mulligans, _ = jax.lax.while_loop(
            needs_any, deal, (board, key_deal, jnp.full(2, -1, jnp.int8), None)
        )
        bonus = jnp.maximum(mulligans[::-1] - mulligans, 0).astype(jnp.int8)
        i16 = jnp.int16
        state = PokemonState(
            board=board,
            damage=jnp.zeros((2, NUM_SLOTS), i16),
            since_turn=jnp.zeros((2, NUM_SLOTS), i16),
            rotated=jnp.zeros(2, jnp.int8),
            poisoned=jnp.zeros(2, bool),
            burned=jnp.zeros(2, bool),
            energy_attached=jnp.bool_(False),
            supporter_played=jnp.bool_(False),
            retreated=jnp.bool_(False),
            stadium_played=jnp.bool_(False),
            stadium_used=jnp.bool_(False),
            ko_by_attack=jnp.zeros(2, bool),
            ko_last_turn=jnp.zeros(2, bool),
            retreat_to=jnp.int8(0),
            retreat_units_left=jnp.int8(0),
            must_promote=jnp.zeros(2, bool),
            promote_then=jnp.int8(THEN_NEXT_TURN),
            mulligans=mulligans,
            bonus_draws=bonus,
            placed=jnp.zeros(2, bool),
            **effect_fields(NUM_SLOTS),
            abilities_used_by_name=jnp.zeros(self.num_shared_abilities, bool),
            vstar_used=jnp.zeros(2, bool),
            first_player=first.astype(jnp.int8),
            deck_pair=pair.astype(jnp.int8),
            winner=jnp.int8(NO_WINNER),
            end_reason=jnp.int8(END["none"]),
        )
        return self._setup_next(state)

    def _needs_mulligan(self, board: Board) -> jax.Array:
        """bool[2]: the player's hand holds no Basic Pokémon."""
        basic = self.is_pokemon[board.definition] & self.is_basic[board.definition]
        return jnp.stack([~jnp.any(basic & (board.zone == zone_of("hand", p))) for p in range(2)])

    def _setup_next(self, state: PokemonState) -> PokemonState:
        """Move the setup on: bonus draws, then each player's placement (first player first),
        then Prize cards, the reveal and the first turn."""
        first = state.first_player.astype(jnp.int32)
        bonus = state.bonus_draws > 0
        bonus_player = jnp.where(bonus[0], 0, 1)
        placer = jnp.where(state.placed[first], 1 - first, first)
        active_empty = ~jnp.any(state.board.zone == slot_zone(placer, 0))
        phase = jnp.where(
            jnp.any(bonus),
            PHASE["mulligan_draw"],
            jnp.where(active_empty, PHASE["setup_active"], PHASE["setup_bench"]),
        )
        player = jnp.where(jnp.any(bonus), bonus_player, placer)
        waiting = state.replace(board=set_turn(state.board, active_player=player, phase=phase))
        return tree_where(jnp.all(state.placed), self._begin(state), waiting)

    def _begin(self, state: PokemonState) -> PokemonState:
        """Both players are set up: Prize cards, every Pokémon face up, the first turn."""
        board, layout = state.board, self.layout
        for p in range(2):
            board = zones.draw_n(
                layout, board, zone_of("deck", p), zone_of("prizes", p), PRIZES
            ).board
        face_up = self.card_slot(board) >= 0
        board = board.replace(
            visibility=jnp.where(face_up, zones.NO_OVERRIDE, board.visibility).astype(jnp.int8)
        )
        board = set_turn(board, turn_number=0)
        return self._start_turn(state.replace(board=board), state.first_player.astype(jnp.int32))

    # -- legality ----------------------------------------------------------------------------------

    def action_errors(self, state: PokemonState) -> jax.Array:
        """Error code of every action (0 = legal), one vectorised pass. Returns int32[A]."""
        board = state.board
        me = board.active_player.astype(jnp.int32)
        phase = board.phase.astype(jnp.int32)
        turn = board.turn_number.astype(jnp.int32)
        view = self.slot_view(state)
        code = CODES
        n = len(self.cards)
        over = state.winner >= 0
        in_main = phase == PHASE["main"]
        in_setup = (phase == PHASE["setup_active"]) | (phase == PHASE["setup_bench"])
        hand = self.hand_counts(board, me)  # [N]
        have = hand > 0
        occupied = view["occupied"][me]  # [6]
        bench_full = jnp.all(occupied[1:])

        def err(*checks):
            return zones.first_error((over, code["game_over"]), *checks)

        defs = jnp.arange(n)
        pokemon = self.is_pokemon[defs]
        basic = pokemon & self.is_basic[defs]
        playable = self.trainer_playable(state, me)  # [N]
        stadium = self.stadium_definition(board)
        # A Stadium is played for what it does while in play, not for an effect now (its first
        # row is the effect a player may use later: Artazon).
        playing = self.is_trainer[defs] & ~self.is_stadium
        play = err(
            (~(in_main | in_setup), code["wrong_phase"]),
            (~have, code["not_in_hand"]),
            (in_setup & ~basic, code["not_a_basic"]),
            (self.is_energy[defs], code["energy_is_attached"]),
            (self.is_tool[defs], code["tool_is_attached"]),
            (pokemon & ~basic, code["evolution_is_evolved"]),
            (basic & (phase != PHASE["setup_active"]) & bench_full, code["bench_full"]),
            (self.is_supporter & state.supporter_played, code["supporter_done"]),
            (self.is_supporter & (turn == 1), code["first_turn_supporter"]),
            # One Stadium a turn, never onto one of the same name (rules "Stadium cards").
            (self.is_stadium & state.stadium_played, code["stadium_done"]),
            (
                self.is_stadium & (stadium > 0) & (self.name_id == self.name_id[stadium]),
                code["same_stadium"],
            ),
            (playing & ~playable, code["no_effect"]),
        )
        use_stadium = err(
            (~in_main, code["wrong_phase"]),
            (~self.stadium_usable[stadium], code["no_stadium"]),
            (state.stadium_used, code["stadium_used"]),
            (~playable[stadium], code["no_effect"]),
        )

        top = view["definition"][me]  # [6]
        since = state.since_turn[me].astype(jnp.int32)
        evolve = err(
            (~in_main, code["wrong_phase"]),
            (~have[:, None], code["not_in_hand"]),
            (~(pokemon & self.is_evolution[defs])[:, None], code["not_an_evolution"]),
            (~occupied[None, :], code["empty_slot"]),
            (~self.evolves_onto[:, top], code["wrong_evolution"]),
            (turn <= 2, code["first_turn_evolution"]),
            ((since >= turn)[None, :], code["new_this_turn"]),
        ).reshape(-1)
        attach = err(
            (~in_main, code["wrong_phase"]),
            (~have[:, None], code["not_in_hand"]),
            (~(self.is_energy | self.is_tool)[defs][:, None], code["not_energy"]),
            (~occupied[None, :], code["empty_slot"]),
            (state.energy_attached & self.is_energy[defs][:, None], code["energy_done"]),
            # One Pokémon Tool a Pokémon; as many Tools a turn as the player likes.
            (self.is_tool[defs][:, None] & view["tool"][me][None, :], code["tool_done"]),
        ).reshape(-1)
        cost_ok = self.ability_cost_payable(hand)  # [N]
        # An Ability that attaches from the discard pile (Psychic Embrace) needs such a card and a
        # Pokémon to take it (one its counters would not Knock Out): judged by its first row.
        first = jnp.maximum(self.ability_first_row[top], 0)  # [6]
        ability_row = {k: self.row[k][top, first]
                       for k in ("op", "card_filter", "energy_type", "target", "target_type",
                                 "amount")}  # fmt: skip
        in_discard = self.zone_definition_counts(board, zone_of("discard", me), 0, 0)
        matches = (self.filter_match[ability_row["card_filter"]]
                   & self.type_match[ability_row["energy_type"]])  # fmt: skip
        found = self.match_counts(matches, in_discard)
        hp_left = view["hp"][me] - state.damage[me]
        wanted = ability_row["target_type"][:, None]
        takers = (
            occupied[None, :]
            & ((wanted == 0) | (self.type[top][None, :] == wanted))
            & (hp_left[None, :] > ability_row["amount"][:, None])
            & ((ability_row["target"][:, None] != TARGET["own_bench"])
               | (jnp.arange(NUM_SLOTS) > 0))
        )  # fmt: skip
        ability_ready = jnp.where(
            (self.ability_first_row[top] >= 0) & (ability_row["op"] == OP["discard_attach_energy"]),
            (found > 0) & jnp.any(takers, axis=1),
            True,
        )
        ability = err(
            (~in_main, code["wrong_phase"]),
            (~occupied, code["empty_slot"]),
            (~self.has_activated[top], code["no_ability"]),
            (state.ability_used[me] & self.ability_once[top], code["ability_used"]),
            (
                (self.ability_name_slot[top] >= 0)
                & state.abilities_used_by_name[jnp.maximum(self.ability_name_slot[top], 0)],
                code["ability_name_used"],
            ),
            (
                self.ability_active_only[top] & (jnp.arange(NUM_SLOTS) > 0),
                code["ability_not_active"],
            ),
            (~cost_ok[top], code["ability_cost"]),
            (~ability_ready, code["ability_no_effect"]),
        )
        # The Ability a Tool gives its holder (Forest Seal Stone's VSTAR Power).
        tool = view["tool_definition"][me]  # [6]
        tool_ability = err(
            (~in_main, code["wrong_phase"]),
            (~occupied, code["empty_slot"]),
            (~self.tool_ability[tool], code["no_tool_ability"]),
            (self.ability_needs_v[tool] & ~self.is_pokemon_v[top], code["not_pokemon_v"]),
            (self.ability_vstar[tool] & state.vstar_used[me], code["vstar_used"]),
        )

        rotated = state.rotated[me]
        cannot_act = (rotated == ASLEEP) | (rotated == PARALYZED)
        units = view["units"][me, 0]  # [11]
        retreat = err(
            (~in_main, code["wrong_phase"]),
            (state.retreated, code["retreat_done"]),
            (cannot_act, code["retreat_condition"]),
            (~occupied[1:], code["empty_slot"]),
            (jnp.sum(units) < self.retreat_costs(state, view)[me, 0], code["retreat_cost"]),
        )
        attack_def, attack_row, has_attack = self.attack_sources(view, me)
        attack_cost = self.attack_cost[attack_def, jnp.minimum(attack_row, MAX_ATTACKS - 1)]
        locked = in_force(state.locked_turn[me, 0], turn) & (
            jnp.arange(MAX_ATTACKS) == state.locked_attack[me, 0]
        )
        use_attack = err(
            (~in_main, code["wrong_phase"]),
            (~has_attack, code["no_such_attack"]),
            (turn == 1, code["first_turn_attack"]),
            (cannot_act, code["attack_condition"]),
            (in_force(state.cannot_attack_turn[me, 0], turn), code["cannot_attack"]),
            (locked, code["attack_locked"]),
            (~self.cost_paid(units[None, :], attack_cost), code["attack_cost"]),
        )
        # In a choice of one of the opponent's attacks (Memory Skip, Genome Hacking), attack[i]
        # names the opponent's Active Pokémon's i-th attack.
        name_attack = err((~self.attack_options(state), code["not_a_choice"]))
        attack = jnp.where(phase == PHASE["select"], name_attack, use_attack)
        attached = view["energy_cards"][me, 0]  # [N]
        choosing = phase == PHASE["select"]
        options, slot_options, may_stop = self.selection_options(state)
        paying = phase == PHASE["retreat_payment"]
        select_card = err(
            (~paying & ~choosing, code["wrong_phase"]),
            (paying & (attached <= 0), code["not_attached"]),
            (choosing & (options <= 0), code["not_a_choice"]),
        )
        own_bench = (jnp.arange(2 * NUM_SLOTS) >= 1) & (jnp.arange(2 * NUM_SLOTS) < NUM_SLOTS)
        promoting = phase == PHASE["promote"]
        select_slot = err(
            (~promoting & ~choosing, code["wrong_phase"]),
            (promoting & ~own_bench, code["not_own_bench"]),
            (
                promoting & ~jnp.concatenate([occupied, view["occupied"][1 - me]]),
                code["empty_slot"],
            ),
            (choosing & ~slot_options, code["not_a_choice"]),
        )
        deck_left = zones.zone_count(board, zone_of("deck", me))
        yes = err(
            (phase != PHASE["mulligan_draw"], code["wrong_phase"]),
            (deck_left <= 0, code["no_cards_left"]),
        )
        done = err(
            (
                (phase != PHASE["mulligan_draw"]) & (phase != PHASE["setup_bench"]) & ~choosing,
                code["wrong_phase"],
            ),
            (choosing & ~may_stop, code["must_choose"]),
        )
        end_turn = err((~in_main, code["wrong_phase"]))
        parts = (
            play, evolve, attach, ability, tool_ability, use_stadium[None], retreat, attack,
            select_card, select_slot,
        )  # fmt: skip
        singles = jnp.stack([yes, done, end_turn]).reshape(-1)
        return jnp.concatenate(
            [jnp.broadcast_to(p, p.shape).reshape(-1) for p in parts] + [singles]
        )

    def legal_action_mask(self, state: PokemonState) -> jax.Array:
        """bool[A]: the legal actions of ``board.active_player``."""
        return self.action_errors(state) == 0

    # -- transitions -------------------------------------------------------------------------------

    def apply(
        self, state: PokemonState, action: jax.Array, key: jax.Array
    ) -> tuple[PokemonState, jax.Array]:
        """Apply a legal ``action`` (int32[]) with ``key`` for coin flips. Returns
        ``(state, rewards float32[2])``: +1 / -1 when the game ends with a winner, else 0."""
        starts = jnp.asarray([self.actions.start(k) for k in KINDS_OF_ACTION], jnp.int32)
        action = jnp.asarray(action, jnp.int32)
        kind = jnp.sum(action >= starts) - 1
        offset = action - starts[kind]
        handlers = tuple(getattr(self, f"_{k}") for k in KINDS_OF_ACTION)
        before = state.winner
        in_setup = state.board.phase <= PHASE["setup_bench"]
        key_action, key_close, key_run, key_turn = jax.random.split(key, 4)
        state = jax.lax.switch(kind, handlers, state, offset, key_action)
        # What follows an action, each traced once: the setup moves on; a choice with nothing
        # left to choose closes; queued effect rows resolve; the turn ends.
        state = when_any(in_setup, self._setup_next, state)
        state = when_some(state.selection.pending(), self._close_if_stuck, state, key_close)
        state = self._run(state, key_run)
        state = when_any(self._knock_out_due_in_turn(state), self._knock_out_in_turn, state)
        state = when_some(state.turn_ending, self._end_of_turn, state, key_turn)
        winner = state.winner.astype(jnp.int32)
        decided = (before < 0) & (winner >= 0) & (winner < 2)
        rewards = jnp.where(decided, jnp.where(jnp.arange(2) == winner, 1.0, -1.0), 0.0)
        return state, rewards.astype(jnp.float32)

    def _play(self, state: PokemonState, d, key) -> PokemonState:
        """play[d]: a Basic Pokémon to the Active slot (setup) or the first empty Bench slot, or
        a Trainer (its rows queue; it waits in ``processing`` until they have resolved)."""
        del key
        trainer = self._play_trainer(state, d)
        return tree_where(self.is_trainer[d], trainer, self._play_basic(state, d))

    def _play_trainer(self, state: PokemonState, d) -> PokemonState:
        board = state.board
        me = board.active_player.astype(jnp.int32)
        card = jnp.maximum(self.card_of(board, zone_of("hand", me), d), 0)
        processing = 2 * len(PLAYER_ZONES) + SHARED_ZONES.index("processing")
        board = zones.move_card(self.layout, board, card, processing).board
        state = state.replace(
            board=board, supporter_played=state.supporter_played | self.is_supporter[d]
        )
        activated = self._activate(state, TRAINER, me, card, -1, WHERE_PLAY)
        return tree_where(self.is_stadium[d], self._play_stadium(state, card), activated)

    def _play_stadium(self, state: PokemonState, card) -> PokemonState:
        """A Stadium from ``processing`` into play; the one it replaces goes to its owner's
        discard pile (whoever played it; rules "Stadium cards")."""
        board = state.board
        old = self.stadium_card(board)
        owner = board.owner[jnp.maximum(old, 0)].astype(jnp.int32)
        replaced = zones.move_card(
            self.layout, board, jnp.maximum(old, 0), zone_of("discard", owner)
        ).board
        board = tree_where(old >= 0, replaced, board)
        board = zones.move_card(self.layout, board, card, STADIUM_ZONE).board
        return state.replace(board=board, stadium_played=jnp.bool_(True))

    def _stadium(self, state: PokemonState, offset, key) -> PokemonState:
        """stadium: the turn's player uses the effect of the Stadium in play (once a turn); its
        rows resolve like a Trainer's, and the Stadium stays in play."""
        del offset, key
        me = state.board.active_player.astype(jnp.int32)
        card = jnp.maximum(self.stadium_card(state.board), 0)
        state = state.replace(stadium_used=jnp.bool_(True))
        return self._activate(state, STADIUM, me, card, -1, WHERE_STADIUM)

    def _play_basic(self, state: PokemonState, d) -> PokemonState:
        board, layout = state.board, self.layout
        me = board.active_player.astype(jnp.int32)
        phase = board.phase.astype(jnp.int32)
        card = jnp.maximum(self.card_of(board, zone_of("hand", me), d), 0)
        occupied = self.slot_view(state)["occupied"][me]
        first_empty_bench = 1 + jnp.argmin(occupied[1:])
        slot = jnp.where(phase == PHASE["setup_active"], 0, first_empty_bench)
        board = zones.move_card(layout, board, card, slot_zone(me, slot)).board
        setup = phase != PHASE["main"]
        board = board.replace(
            visibility=board.visibility.at[card].set(
                jnp.where(setup, zones.OWNER, zones.NO_OVERRIDE).astype(jnp.int8)
            )
        )
        turn = board.turn_number.astype(jnp.int16)
        state = self._clear_slot(state, me, slot).replace(
            board=board,
            since_turn=state.since_turn.at[me, slot].set(jnp.where(setup, 0, turn)),
        )
        # Put onto the Bench from the hand in the player's turn: an on-bench Ability's rows run
        # (Lumineon V's Luminous Sign).
        triggered = self._activate(state, ABILITY, me, card, slot, WHERE_ABILITY)
        return tree_where(~setup & self.on_bench[d], triggered, state)

    def _clear_slot(self, state: PokemonState, player, slot) -> PokemonState:
        """The per-slot records of a slot whose Pokémon left play (or a new one arrives)."""
        return state.replace(
            damage=state.damage.at[player, slot].set(0),
            since_turn=state.since_turn.at[player, slot].set(0),
            ability_used=state.ability_used.at[player, slot].set(False),
            cannot_attack_turn=state.cannot_attack_turn.at[player, slot].set(0),
            protected_turn=state.protected_turn.at[player, slot].set(0),
            reduced_turn=state.reduced_turn.at[player, slot].set(0),
            locked_attack=state.locked_attack.at[player, slot].set(0),
            locked_turn=state.locked_turn.at[player, slot].set(0),
        )

    def _evolve(self, state: PokemonState, offset, key) -> PokemonState:
        """evolve[d * 6 + slot]: put the hand card on the slot's Pokémon; an on-evolve Ability
        of the card runs (Charizard ex's Infernal Reign)."""
        del key
        board, me, slot = self._hand_card_to_slot(state, offset)
        state = self.after_evolution(state.replace(board=board), me, slot)
        card = jnp.maximum(self.slot_view(state)["card"][me, slot], 0)
        triggered = self._activate(state, ABILITY, me, card, slot, WHERE_ABILITY)
        return tree_where(self.on_evolve[offset // NUM_SLOTS], triggered, state)

    def after_evolution(self, state: PokemonState, me, slot) -> PokemonState:
        """What evolving (by ``evolve`` or Rare Candy) does to the slot's Pokémon besides the
        card put on it: it is new this turn, and loses its conditions and attack effects."""
        board = state.board
        active = slot == 0
        return state.replace(
            since_turn=state.since_turn.at[me, slot].set(board.turn_number.astype(jnp.int16)),
            # Evolving removes every Special Condition (R "Evolution").
            rotated=state.rotated.at[me].set(jnp.where(active, 0, state.rotated[me])),
            poisoned=state.poisoned.at[me].set(state.poisoned[me] & ~active),
            burned=state.burned.at[me].set(state.burned[me] & ~active),
            # Effects of attacks on a Pokémon end when it evolves; the evolved Pokémon is a new
            # one, whose own once-a-turn Ability is not yet used.
            ability_used=state.ability_used.at[me, slot].set(False),
            cannot_attack_turn=state.cannot_attack_turn.at[me, slot].set(0),
            protected_turn=state.protected_turn.at[me, slot].set(0),
            reduced_turn=state.reduced_turn.at[me, slot].set(0),
            locked_attack=state.locked_attack.at[me, slot].set(0),
            locked_turn=state.locked_turn.at[me, slot].set(0),
        )

    def _attach(self, state: PokemonState, offset, key) -> PokemonState:
        """attach[d * 6 + slot]: an Energy card (the turn's one) or a Pokémon Tool from the hand
        to the slot's Pokémon."""
        del key
        board, _, _ = self._hand_card_to_slot(state, offset)
        energy = self.is_energy[offset // NUM_SLOTS]
        return state.replace(board=board, energy_attached=state.energy_attached | energy)

    def _hand_card_to_slot(self, state: PokemonState, offset):
        """``offset = d * 6 + slot``: the acting player's hand card of definition ``d`` onto their
        slot ``slot`` (an evolution or an Energy). Returns ``(board, player, slot)``."""
        board = state.board
        me = board.active_player.astype(jnp.int32)
        d, slot = offset // NUM_SLOTS, offset % NUM_SLOTS
        card = jnp.maximum(self.card_of(board, zone_of("hand", me), d), 0)
        return zones.move_card(self.layout, board, card, slot_zone(me, slot)).board, me, slot

    def _ability(self, state: PokemonState, slot, key) -> PokemonState:
        """ability[slot]: use the activated Ability of the slot's Pokémon (once a turn)."""
        del key
        me = state.board.active_player.astype(jnp.int32)
        view = self.slot_view(state)
        card = view["card"][me, slot]
        name = self.ability_name_slot[view["definition"][me, slot]]
        by_name = state.abilities_used_by_name
        state = state.replace(
            ability_used=state.ability_used.at[me, slot].set(True),
            abilities_used_by_name=jnp.where(
                name >= 0, by_name.at[jnp.maximum(name, 0)].set(True), by_name
            ),
        )
        return self._activate(state, ABILITY, me, jnp.maximum(card, 0), slot, WHERE_ABILITY)

    def _tool_ability(self, state: PokemonState, slot, key) -> PokemonState:
        """tool_ability[slot]: use the Ability the slot's Pokémon Tool gives its holder (a VSTAR
        Power: the player's one of the game); its rows resolve as the Tool's, from that slot."""
        del key
        me = state.board.active_player.astype(jnp.int32)
        tool_definition = self.slot_view(state)["tool_definition"][me, slot]
        card = self.card_of(state.board, slot_zone(me, slot), tool_definition)
        state = state.replace(
            vstar_used=state.vstar_used.at[me].set(
                state.vstar_used[me] | self.ability_vstar[tool_definition]
            )
        )
        return self._activate(state, ABILITY, me, jnp.maximum(card, 0), slot, WHERE_ABILITY)

    def _retreat(self, state: PokemonState, b, key) -> PokemonState:
        """retreat[b]: pay the retreat cost (a selection when it is above 0), then swap."""
        del key
        me = state.board.active_player.astype(jnp.int32)
        cost = self.retreat_costs(state, self.slot_view(state))[me, 0]
        paying = state.replace(
            board=set_turn(state.board, phase=PHASE["retreat_payment"]),
            retreat_to=(b + 1).astype(jnp.int8),
            retreat_units_left=cost.astype(jnp.int8),
        )
        return tree_where(cost > 0, paying, self._swap_active(state, me, b + 1, retreat=True))

    def _swap_active(self, state: PokemonState, player, slot, *, retreat: bool) -> PokemonState:
        """The Active Pokémon and Bench slot ``slot`` trade places; the one going to the Bench loses
        its Special Conditions (R13, R16)."""
        board = zones.swap_zones(
            self.layout, state.board, slot_zone(player, 0), slot_zone(player, slot)
        ).board

        def swap(rows):
            a, s = rows[player, 0], rows[player, slot]
            return rows.at[player, 0].set(s).at[player, slot].set(a)

        # Effects of attacks on the Pokémon going to the Bench end (R13, R16).
        state = state.replace(
            board=board,
            damage=swap(state.damage),
            since_turn=swap(state.since_turn),
            ability_used=swap(state.ability_used),
            cannot_attack_turn=swap(state.cannot_attack_turn).at[player, slot].set(0),
            protected_turn=swap(state.protected_turn).at[player, slot].set(0),
            reduced_turn=swap(state.reduced_turn).at[player, slot].set(0),
            locked_attack=swap(state.locked_attack).at[player, slot].set(0),
            locked_turn=swap(state.locked_turn).at[player, slot].set(0),
            rotated=state.rotated.at[player].set(0),
            poisoned=state.poisoned.at[player].set(False),
            burned=state.burned.at[player].set(False),
        )
        if retreat:
            state = state.replace(
                retreated=jnp.bool_(True),
                retreat_to=jnp.int8(0),
                retreat_units_left=jnp.int8(0),
                board=set_turn(state.board, phase=PHASE["main"]),
            )
        return state

    def _select_card(self, state: PokemonState, d, key) -> PokemonState:
        """select_card[d]: a card for the effect being resolved, or, while paying a retreat
        cost, an attached Energy of ``d`` to discard."""
        choosing = state.board.phase == PHASE["select"]
        return tree_where(choosing, self._choose_card(state, d, key), self._pay(state, d))

    def _pay(self, state: PokemonState, d) -> PokemonState:
        board = state.board
        me = board.active_player.astype(jnp.int32)
        card = jnp.maximum(self.card_of(board, slot_zone(me, 0), d), 0)
        board = zones.move_card(self.layout, board, card, zone_of("discard", me)).board
        left = state.retreat_units_left - self.units[d].astype(jnp.int8)
        state = state.replace(board=board, retreat_units_left=left)
        swapped = self._swap_active(state, me, state.retreat_to.astype(jnp.int32), retreat=True)
        return tree_where(left <= 0, swapped, state)

    def _select_slot(self, state: PokemonState, k, key) -> PokemonState:
        """select_slot[k]: a Pokémon for the effect being resolved, or, while promoting, Bench
        slot ``k`` becomes the Active Pokémon."""
        choosing = state.board.phase == PHASE["select"]
        return tree_where(choosing, self._choose_slot(state, k, key), self._promote(state, k, key))

    def _promote(self, state: PokemonState, k, key) -> PokemonState:
        me = state.board.active_player.astype(jnp.int32)
        del key
        state = self._swap_active(state, me, k, retreat=False)
        state = state.replace(must_promote=state.must_promote.at[me].set(False))
        # Within a turn (THEN_CONTINUE): the other player's promotion if one is due, else the
        # turn's owner goes on in their Main phase. Between turns: what the turn's end decides.
        other_due = jnp.any(state.must_promote)
        going_on = state.replace(
            board=set_turn(
                state.board,
                active_player=jnp.where(other_due, 1 - me, self._turn_ender(state)),
                phase=jnp.where(other_due, PHASE["promote"], PHASE["main"]),
            ),
            promote_then=jnp.where(other_due, THEN_CONTINUE, THEN_NEXT_TURN).astype(jnp.int8),
        )
        between_turns = state.replace(turn_ending=jnp.bool_(True))
        return tree_where(state.promote_then == THEN_CONTINUE, going_on, between_turns)

    def _yes(self, state: PokemonState, offset, key) -> PokemonState:
        """yes during the mulligan draws: draw 1 more card."""
        del offset, key
        board = state.board
        me = board.active_player.astype(jnp.int32)
        board = zones.draw(self.layout, board, zone_of("deck", me), zone_of("hand", me)).board
        bonus = state.bonus_draws.at[me].add(-1)
        return state.replace(board=board, bonus_draws=bonus)

    def _done(self, state: PokemonState, offset, key) -> PokemonState:
        """done: stop the mulligan draws, finish setting up the Bench, or stop an "up to"
        choice of an effect."""
        del offset
        choosing = state.board.phase == PHASE["select"]
        return tree_where(choosing, self._stop(state, key), self._setup_done(state))

    def _setup_done(self, state: PokemonState) -> PokemonState:
        me = state.board.active_player.astype(jnp.int32)
        drawing = state.board.phase == PHASE["mulligan_draw"]
        state = state.replace(
            bonus_draws=jnp.where(drawing, state.bonus_draws.at[me].set(0), state.bonus_draws),
            placed=jnp.where(drawing, state.placed, state.placed.at[me].set(True)),
        )
        return state

    def _attack(self, state: PokemonState, i, key) -> PokemonState:
        """attack[i]: in the Main phase, the Active Pokémon uses its ``i``-th attack
        (:meth:`_use_attack`); in a choice of the ``attack`` stage, the opponent's Active
        Pokémon's ``i``-th attack is the one chosen (``effects._choose_attack``)."""
        choosing = state.board.phase == PHASE["select"]
        return tree_where(
            choosing, self._choose_attack(state, i, key), self._use_attack(state, i, key)
        )

    def _use_attack(self, state: PokemonState, i, key) -> PokemonState:
        """attack[i] in the Main phase: the Active Pokémon attacks with its ``i``-th attack (its
        own, then its Tool's: :meth:`attack_sources`); the attack's rows queue, its damage is
        dealt when they have resolved (or before the first row that is not a damage modifier),
        then the turn ends (``effects.py``). Confused (R13): a flip first; tails, the attack does nothing and
        3 damage counters go on the attacker."""
        me = state.board.active_player.astype(jnp.int32)
        view = self.slot_view(state)
        definition, index, _ = self.attack_sources(view, me)
        # The card whose attack it is: the Pokémon, or the Tool attached to it that gives it.
        from_tool = definition[i] != view["definition"][me, 0]
        tool = self.card_of(state.board, slot_zone(me, 0), view["tool_definition"][me, 0])
        card = jnp.where(from_tool, tool, view["card"][me, 0])
        tails = (state.rotated[me] == CONFUSED) & ~jax.random.bernoulli(key)
        attack = self._activate(state, ATTACK, me, jnp.maximum(card, 0), 0, index[i])
        attack = attack.replace(attack_index=index[i].astype(jnp.int8))
        fumbled = attack.replace(
            queue=state.queue,
            does_nothing=jnp.bool_(True),
            damage=state.damage.at[me, 0].add(jnp.int16(CONFUSION_DAMAGE)),
        )
        return tree_where(tails, fumbled, attack)

    def _end_turn(self, state: PokemonState, offset, key) -> PokemonState:
        del offset, key
        return state.replace(promote_then=jnp.int8(THEN_CHECKUP), turn_ending=jnp.bool_(True))

    # -- between turns -----------------------------------------------------------------------------

    def _end_of_turn(self, state: PokemonState, key) -> PokemonState:
        return self._after_knockouts(state.replace(turn_ending=jnp.bool_(False)), key)

    def _after_knockouts(self, state: PokemonState, key) -> PokemonState:
        """Between turns, once the Knock Outs of the last action are known: the next promotion
        (the player whose turn is next first), else the Pokémon Checkup (once, with its own Knock
        Outs), its promotions, then the next turn."""
        ender = self._turn_ender(state)
        checkup = (
            ~jnp.any(state.must_promote) & (state.promote_then == THEN_CHECKUP) & (state.winner < 0)
        )
        state = when_any(checkup, lambda s: self._checkup(s, key), state)
        # Both Actives Knocked Out at once: the player whose turn is next promotes first, the
        # player whose turn ended last (seeing the other's new Active).
        promoter = jnp.where(state.must_promote[1 - ender], 1 - ender, ender)
        promoting = state.replace(
            board=set_turn(state.board, active_player=promoter, phase=PHASE["promote"])
        )
        finished = state.replace(board=set_turn(state.board, phase=PHASE["game_over"]))
        next_turn = self._start_turn(state, 1 - ender)
        return tree_where(
            state.winner >= 0,
            finished,
            tree_where(jnp.any(state.must_promote), promoting, next_turn),
        )

    def _turn_ender(self, state: PokemonState) -> jax.Array:
        """The owner of turn ``turn_number`` (the first player's on odd turns): the player whose
        turn is ending between turns, whoever is deciding a promotion. Returns int32[]."""
        turn = state.board.turn_number.astype(jnp.int32)
        first = state.first_player.astype(jnp.int32)
        return jnp.where(turn % 2 == 1, first, 1 - first)

    def _checkup(self, state: PokemonState, key) -> PokemonState:
        """Pokémon Checkup (R11, R12): Poisoned, Burned (then a flip), Asleep (a flip), Paralyzed
        (ends after its owner's turn), then its Knock Outs; no further Checkup this turn."""
        keys = jax.random.split(key, 2)
        ender = self._turn_ender(state)
        state = self._discard_at_turn_end(state, ender)
        poison = jnp.where(state.poisoned, POISON_DAMAGE, 0)
        burn = jnp.where(state.burned, BURN_DAMAGE, 0)
        occupied = self.slot_view(state)["occupied"][:, 0]
        damage = state.damage.at[:, 0].add(jnp.where(occupied, poison + burn, 0).astype(jnp.int16))
        burn_heads = jax.random.bernoulli(keys[0], shape=(2,))
        sleep_heads = jax.random.bernoulli(keys[1], shape=(2,))
        rotated = state.rotated
        wakes = (rotated == ASLEEP) & sleep_heads
        unparalyzed = (rotated == PARALYZED) & (jnp.arange(2) == ender)
        rotated = jnp.where(wakes | unparalyzed, 0, rotated).astype(jnp.int8)
        state = state.replace(damage=damage, burned=state.burned & ~burn_heads, rotated=rotated)
        state = self._knock_out(state, by_attack=False)
        return state.replace(promote_then=jnp.int8(THEN_NEXT_TURN))

    def _discard_at_turn_end(self, state: PokemonState, player) -> PokemonState:
        """The end of ``player``'s turn, before the Checkup: the Tools that say so (Technical
        Machines) go from their Pokémon to their owner's discard pile."""
        board = state.board
        discard = zone_of("discard", player)
        doomed = self.discard_at_turn_end[board.definition.astype(jnp.int32)]

        def one_slot(slot, board):  # at most one Tool a Pokémon
            card = jnp.argmax(doomed & (board.zone == slot_zone(player, slot)))
            found = doomed[card] & (board.zone[card] == slot_zone(player, slot))
            moved = zones.move_card(self.layout, board, card, discard).board
            return tree_where(found, moved, board)

        return state.replace(board=jax.lax.fori_loop(0, NUM_SLOTS, one_slot, board))

    def _knock_out_due_in_turn(self, state: PokemonState) -> jax.Array:
        """bool[]: a Pokémon's damage reached its HP outside an attack and the Checkup, e.g. its
        HP bonus ended when the Energy it counts was discarded to pay a retreat cost. A Pokémon
        is Knocked Out as soon as its damage reaches its HP, not at the next Checkup."""
        view = self.slot_view(state)
        reached = jnp.any(view["occupied"] & (state.damage >= view["hp"]))
        return reached & (state.winner < 0) & ~state.turn_ending & (state.effect_kind == NO_EFFECT)

    def _knock_out_in_turn(self, state: PokemonState) -> PokemonState:
        """The Knock Outs of :meth:`_knock_out_due_in_turn`: Prize cards and wins as after an
        attack; a retreat whose Active was Knocked Out while paying is over; promotions are asked
        at once (the Knocked Out Active's owner first) and then the same turn goes on."""
        me = state.board.active_player.astype(jnp.int32)
        state = self._knock_out(state, by_attack=False)
        active_gone = ~self.slot_view(state)["occupied"][me, 0]
        paying = active_gone & (state.board.phase == PHASE["retreat_payment"])
        due = jnp.any(state.must_promote) & (state.winner < 0)
        promoter = jnp.where(state.must_promote[me], me, 1 - me)
        phase = jnp.where(
            state.winner >= 0,
            PHASE["game_over"],
            jnp.where(due, PHASE["promote"], jnp.where(paying, PHASE["main"], state.board.phase)),
        )
        return state.replace(
            board=set_turn(state.board, active_player=jnp.where(due, promoter, me), phase=phase),
            retreat_to=jnp.where(paying, 0, state.retreat_to).astype(jnp.int8),
            retreat_units_left=jnp.where(paying, 0, state.retreat_units_left).astype(jnp.int8),
            promote_then=jnp.where(due, THEN_CONTINUE, state.promote_then).astype(jnp.int8),
        )

    def _knock_out(self, state: PokemonState, *, by_attack: bool) -> PokemonState:
        """Discard every Pokémon whose damage reached its HP; Prize cards; promotions; wins."""
        layout = self.layout
        view = self.slot_view(state)
        knocked = view["occupied"] & (state.damage >= view["hp"])  # [2, 6]
        prizes_due = jnp.sum(jnp.where(knocked, self.prizes[view["definition"]], 0), axis=1)
        board = state.board
        for p in range(2):
            for s in range(NUM_SLOTS):
                moved = zones.move_all(layout, board, slot_zone(p, s), zone_of("discard", p)).board
                board = tree_where(knocked[p, s], moved, board)
        # Each player takes the Prize cards due for the opponent's Knocked Out Pokémon (R10).
        for p in range(2):
            left = zones.zone_count(board, zone_of("prizes", p))
            take = jnp.minimum(prizes_due[1 - p], left)
            board = zones.draw_n(
                layout, board, zone_of("prizes", p), zone_of("hand", p), take
            ).board
        damage = jnp.where(knocked, 0, state.damage).astype(jnp.int16)
        state = state.replace(
            ability_used=state.ability_used & ~knocked,
            cannot_attack_turn=jnp.where(knocked, 0, state.cannot_attack_turn).astype(jnp.int16),
            protected_turn=jnp.where(knocked, 0, state.protected_turn).astype(jnp.int16),
            reduced_turn=jnp.where(knocked, 0, state.reduced_turn).astype(jnp.int16),
            locked_attack=jnp.where(knocked, 0, state.locked_attack).astype(jnp.int8),
            locked_turn=jnp.where(knocked, 0, state.locked_turn).astype(jnp.int16),
            since_turn=jnp.where(knocked, 0, state.since_turn).astype(jnp.int16),
        )
        # An empty Active is promoted into as after a Knock Out (Aqua Return shuffled it away).
        active_out = knocked[:, 0] | ~view["occupied"][:, 0]
        bench_left = jnp.any(view["occupied"][:, 1:] & ~knocked[:, 1:], axis=1)
        no_pokemon = ~jnp.any(view["occupied"] & ~knocked, axis=1)  # [2]
        prizes_left = jnp.stack([zones.zone_count(board, zone_of("prizes", p)) for p in range(2)])
        # Win conditions met by each player (R15): last Prize taken, opponent without Pokémon.
        took_last = (prizes_left == 0) & (prizes_due[::-1] > 0)
        wins = took_last.astype(jnp.int32) + no_pokemon[::-1].astype(jnp.int32)
        state = self._decide(state, wins, took_last)
        return state.replace(
            board=board,
            damage=damage,
            rotated=jnp.where(active_out, 0, state.rotated).astype(jnp.int8),
            poisoned=state.poisoned & ~active_out,
            burned=state.burned & ~active_out,
            must_promote=state.must_promote | (active_out & bench_left),
            ko_by_attack=state.ko_by_attack | (jnp.any(knocked, axis=1) & by_attack),
        )

    def _decide(self, state: PokemonState, wins: jax.Array, took_last: jax.Array) -> PokemonState:
        """Record a result from the win conditions each player meets (``wins`` int32[2])."""
        any_win = jnp.any(wins > 0)
        winner = jnp.where(wins[0] > wins[1], 0, jnp.where(wins[1] > wins[0], 1, DRAW))
        reason = jnp.where(
            winner == DRAW,
            END["simultaneous"],
            jnp.where(took_last[jnp.minimum(winner, 1)], END["prizes"], END["no_pokemon"]),
        )
        fresh = any_win & (state.winner < 0)
        return state.replace(
            winner=jnp.where(fresh, winner, state.winner).astype(jnp.int8),
            end_reason=jnp.where(fresh, reason, state.end_reason).astype(jnp.int8),
        )

    def _start_turn(self, state: PokemonState, player) -> PokemonState:
        """Turn ``turn_number + 1`` of ``player``: once-per-turn flags reset, draw 1 (R1)."""
        board, layout = state.board, self.layout
        turn = board.turn_number.astype(jnp.int32) + 1
        board = set_turn(board, active_player=player, turn_number=turn, phase=PHASE["main"])
        drawn = zones.draw(layout, board, zone_of("deck", player), zone_of("hand", player))
        decked = drawn.error != 0
        limit = turn > self.max_turns
        state = state.replace(
            board=tree_where(limit, board, drawn.board),
            energy_attached=jnp.bool_(False),
            supporter_played=jnp.bool_(False),
            retreated=jnp.bool_(False),
            stadium_played=jnp.bool_(False),
            stadium_used=jnp.bool_(False),
            ability_used=jnp.zeros_like(state.ability_used),
            abilities_used_by_name=jnp.zeros_like(state.abilities_used_by_name),
            ko_last_turn=state.ko_last_turn.at[player].set(state.ko_by_attack[player]),
            ko_by_attack=jnp.zeros(2, bool),
        )
        ended = limit | decked
        return state.replace(
            board=set_turn(state.board, phase=jnp.where(ended, PHASE["game_over"], PHASE["main"])),
            winner=jnp.where(limit, DRAW, jnp.where(decked, 1 - player, state.winner)).astype(
                jnp.int8
            ),
            end_reason=jnp.where(
                limit, END["turn_limit"], jnp.where(decked, END["deck_out"], state.end_reason)
            ).astype(jnp.int8),
        )

    def validate(self, state: PokemonState) -> None:
        """Raise ``InvalidStateError`` if ``state`` (one game) is not reachable under these rules.

        Host-side: the ordered invariant table of :func:`build_invariants` (one row per fact,
        every state leaf named by a row) over the state's :func:`state_facts`; the error names
        the first broken fact's JSON path. Among them: winner, end reason and phase agree;
        each player holds exactly their deck, every card in a zone of its owner, each zone's
        positions 0..n-1; a slot's pile is a Basic with its evolutions in order and attached
        Energy; damage in counters of 10, below the HP except while an attack waits on a
        choice (its Knock Outs come when it finishes); the player to act is the one the phase
        says; the effect records (activation, queue, selection) agree with whether a choice is
        pending; the setup, retreat, promotion and once-per-turn records hold their domains."""
        _validate(self, state)

    def forfeit(self, state: PokemonState, loser: jax.Array) -> PokemonState:
        """``loser`` made an illegal move under ``illegal_action="lose"``: the other player wins."""
        return state.replace(
            winner=(1 - loser).astype(jnp.int8),
            end_reason=jnp.int8(END["illegal_action"]),
            board=set_turn(state.board, phase=PHASE["game_over"]),
        )


# -- validate: the invariant table ---------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Facts:
    """The host view of one state the invariants read (numpy leaves, piles, the slot view).

    Attributes:
      rules: the rules object.
      s: the state with numpy leaves; ``b`` its board.
      phase, turn, winner, reason, kind: ``board.phase``, ``board.turn_number``, ``winner``,
        ``end_reason``, ``effect_kind`` as ints.
      setup: the phase is one of the setup's; ``pending``: a choice is pending.
      piles: ``piles[p][slot]``, the slot's card indices bottom to top.
      occupied, hp: bool / int ``[2, 6]`` from the rules' slot view (HP bonus included).
      retreat_costs: int ``[2, 6]``, each Pokémon's Retreat Cost now (``rules.retreat_costs``).
      counts: cards per zone, int ``[Z]``.
      owner_of_turn: the player whose turn ``turn`` is (the first player's on odd turns).
    """

    rules: PokemonRules
    s: PokemonState
    b: Board
    phase: int
    turn: int
    winner: int
    reason: int
    kind: int
    setup: bool
    pending: bool
    piles: tuple
    occupied: np.ndarray
    hp: np.ndarray
    retreat_costs: np.ndarray
    counts: np.ndarray
    owner_of_turn: int


def state_facts(rules: PokemonRules, state: PokemonState) -> Facts:
    """The :class:`Facts` of one state (host-side; never raises on out-of-range values)."""
    s = jax.tree.map(np.asarray, jax.device_get(state))
    b = s.board
    view = rules.__dict__.get("_host_slot_view")
    if view is None:
        view = rules.__dict__.setdefault("_host_slot_view", jax.jit(rules.slot_view))
    costs = rules.__dict__.get("_host_retreat_costs")
    if costs is None:
        costs = rules.__dict__.setdefault(
            "_host_retreat_costs", jax.jit(lambda g: rules.retreat_costs(g, rules.slot_view(g)))
        )
    v = jax.tree.map(np.asarray, view(s))
    piles = []
    for p in range(2):
        row = []
        for slot in range(NUM_SLOTS):
            pile = np.flatnonzero(b.zone == _host_zone(SLOT_ZONES[slot], p))
            row.append(tuple(int(c) for c in pile[np.argsort(b.position[pile], kind="stable")]))
        piles.append(tuple(row))
    phase, turn = int(b.phase), int(b.turn_number)
    first = int(s.first_player)
    return Facts(
        rules=rules,
        s=s,
        b=b,
        phase=phase,
        turn=turn,
        winner=int(s.winner),
        reason=int(s.end_reason),
        kind=int(s.effect_kind),
        setup=phase in (PHASE["mulligan_draw"], PHASE["setup_active"], PHASE["setup_bench"]),
        pending=int(s.selection.card) >= 0,
        piles=tuple(piles),
        occupied=v["occupied"],
        hp=v["hp"],
        retreat_costs=np.asarray(costs(s)),
        counts=np.bincount(
            np.clip(b.zone.astype(np.int64), 0, None), minlength=rules.layout.num_zones
        ),
        owner_of_turn=first if turn % 2 == 1 else 1 - first,
    )


def _turn_owner(f: Facts, turn: int) -> int:
    """The player whose turn ``turn`` is (the first player's on odd turns)."""
    first = int(f.s.first_player)
    return first if turn % 2 == 1 else 1 - first


def _host_zone(name: str, player: int) -> int:
    """Zone index of the player zone ``name`` of ``player`` (a Python int, for host code)."""
    return player * len(PLAYER_ZONES) + PLAYER_ZONES.index(name)


def _static(rules: PokemonRules) -> dict:
    """Numpy copies of the card tables the invariants read."""
    c = rules.cards.numpy
    kinds = np.asarray(c["kind"])
    return dict(
        names=rules.cards.ids,
        is_pokemon=kinds == _KIND["pokemon"],
        is_energy=(kinds == _KIND["basic_energy"]) | (kinds == _KIND["special_energy"]),
        is_trainer=np.asarray(rules.is_trainer),
        stage=np.asarray(c["stage"]),
        onto=np.asarray(rules.evolves_onto),
        num_attacks=np.asarray(rules.num_attacks),
        row_where=np.asarray(rules.row_where),
        retreat=np.asarray(rules.retreat_cost),
        activated=np.asarray(rules.has_activated),
        tool_ability=np.asarray(rules.tool_ability),
        vstar=np.asarray(rules.ability_vstar),
        is_tool=np.asarray(rules.is_tool),
        is_stadium=np.asarray(rules.is_stadium),
        ability_name_slot=np.asarray(rules.ability_name_slot),
        candy=np.asarray(rules.candy_onto),
        row_op=np.asarray(rules.row["op"]),
        copies_attack=np.asarray(rules.copies_attack),
    )


def build_invariants(rules: PokemonRules) -> InvariantTable:  # noqa: C901 — one row per fact
    """The ordered :class:`~tcgjax.core.invariants.InvariantTable` of :meth:`PokemonRules.validate`
    over :func:`state_facts`. Earlier rows guard later ones (indices in range first)."""
    from tcgjax.core.board import card_id, player_id

    t = _static(rules)
    layout = rules.layout
    num_cards, num_zones = layout.num_cards, layout.num_zones
    processing = 2 * len(PLAYER_ZONES) + SHARED_ZONES.index("processing")
    rows: list[Invariant] = []

    def row(fields, path, rule):
        def add(check):
            rows.append(Invariant(tuple(fields), path, rule, check))
            return check

        return add

    def pid(p):
        return player_id(p)

    # -- result and phase ------------------------------------------------------------------------
    @row(["board.phase"], "turnState.phase", "a phase of PHASES")
    def _(f):
        return None if 0 <= f.phase < len(PHASES) else f"{f.phase} is not a phase"

    @row(["winner", "end_reason"], "game.winner", "winner in {-1, 0, 1, 2}, a known end reason")
    def _(f):
        if f.winner not in (NO_WINNER, 0, 1, DRAW) or not 0 <= f.reason < len(END_REASONS):
            return f"winner {f.winner}, end reason {f.reason}: unknown values"

    @row(["winner", "end_reason"], "game.endReason", "an end reason exactly when there is a result")
    def _(f):
        if (f.winner == NO_WINNER) != (f.reason == END["none"]):
            return f"{END_REASONS[f.reason]} does not agree with winner {f.winner}"

    @row(["winner", "board.phase"], "turnState.phase", "game_over exactly when there is a result")
    def _(f):
        if (f.winner != NO_WINNER) != (f.phase == PHASE["game_over"]):
            return f"{PHASES[f.phase]} with winner {f.winner}"

    @row(["winner", "end_reason"], "game.endReason", "a draw is simultaneous or turn_limit")
    def _(f):
        if (f.winner == DRAW) != (f.reason in (END["simultaneous"], END["turn_limit"])):
            return f"{END_REASONS[f.reason]} with winner {f.winner} (2 = a draw)"

    @row(["winner", "end_reason", "board.zone"], "game.endReason",
         "the end reason's fact holds: prizes, the winner has no Prize card left; no_pokemon, "
         "the loser has no Pokémon in play; deck_out, the loser's deck is empty")  # fmt: skip
    def _(f):
        if f.winner not in (0, 1):
            return None
        loser = 1 - f.winner
        if f.reason == END["prizes"] and f.counts[_host_zone("prizes", f.winner)]:
            left = int(f.counts[_host_zone("prizes", f.winner)])
            return f"'prizes' but {pid(f.winner)} has {left} Prize cards left"
        if f.reason == END["no_pokemon"] and bool(f.occupied[loser].any()):
            return f"'no_pokemon' but {pid(loser)} has a Pokémon in play"
        if f.reason == END["deck_out"] and f.counts[_host_zone("deck", loser)]:
            left = int(f.counts[_host_zone("deck", loser)])
            return f"'deck_out' but {pid(loser)} has {left} cards in the deck"

    @row(["first_player", "board.active_player"], "turnState.activePlayerId",
         "the first and the active player are players")  # fmt: skip
    def _(f):
        if int(f.s.first_player) not in (0, 1) or int(f.b.active_player) not in (0, 1):
            return "the first and the active player are players"

    @row(["board.phase", "board.turn_number", "placed"], "turnState.phase",
         "the setup phases come on turn 1, before both players are placed")  # fmt: skip
    def _(f):
        if f.setup and (f.turn != 1 or bool(np.all(f.s.placed))):
            return f"{PHASES[f.phase]} on turn {f.turn} with placed {f.s.placed.tolist()}"

    @row(["placed"], "game.placed", "play starts once both players set up")
    def _(f):
        if not f.setup and not bool(np.all(f.s.placed)):
            return "play goes on before both players set up their Pokémon"

    @row(["placed", "first_player"], "game.placed", "the second player places after the first")
    def _(f):
        first = int(f.s.first_player)
        if bool(f.s.placed[1 - first]) and not bool(f.s.placed[first]):
            return f"{f.s.placed.tolist()}: the second player placed before the first"

    @row(["board.turn_number"], "turnState.turnNumber",
         "turn in [1, max_turns + 1]; max_turns + 1 only when the turn limit ended the game")  # fmt: skip
    def _(f):
        if f.setup:
            return None
        if not 1 <= f.turn <= rules.max_turns + 1:
            return f"{f.turn} outside [1, max_turns + 1 = {rules.max_turns + 1}]"
        if f.turn == rules.max_turns + 1 and f.reason != END["turn_limit"]:
            return f"turn {f.turn} = max_turns + 1 without the turn limit ending the game"

    # -- cards -----------------------------------------------------------------------------------
    @row(["board.definition", "board.owner"], "cards.ownerId",
         "card i belongs to player i // 60; its definition is in the registry")  # fmt: skip
    def _(f):
        for c in range(num_cards):
            if int(f.b.owner[c]) != c // DECK_SIZE:
                return f"{card_id(c)}: owner {int(f.b.owner[c])}, not player {c // DECK_SIZE}"
            if not 1 <= int(f.b.definition[c]) < len(t["names"]):
                return f"{card_id(c)}: definition {int(f.b.definition[c])} not in the registry"

    @row(["deck_pair"], "game.deckPair", "the matchup: an index into the rules' pairs")
    def _(f):
        if not 0 <= int(f.s.deck_pair) < len(rules.pairs):
            return f"{int(f.s.deck_pair)} outside [0, {len(rules.pairs)})"

    for p in range(2):

        @row(["board.definition", "board.owner", "deck_pair"], f"players.{pid(p)}",
             "the player holds exactly their deck (of the game's matchup)")  # fmt: skip
        def _(f, p=p):
            held = sorted(t["names"][int(d)] for d in f.b.definition[f.b.owner == p])
            deck = rules.seat_deck(int(f.s.deck_pair), p)
            if held != sorted(deck.cards):
                return f"holds other cards than their deck {deck.name!r}"

    @row(["board.zone"], "cards.zoneId", "every card in a zone of its owner (or a shared one)")
    def _(f):
        for c in range(num_cards):
            z = int(f.b.zone[c])
            if not 0 <= z < num_zones:
                return f"{card_id(c)}: {z} is not a zone"
            owner = layout.zones[z][1]
            if owner is not None and owner != int(f.b.owner[c]):
                return f"{card_id(c)}: in {layout.zone_id(z)}"

    @row(["board.position"], "cards.position", "each zone's positions are exactly 0 .. n - 1")
    def _(f):
        for z in range(num_zones):
            members = f.b.position[f.b.zone == z]
            if sorted(members.tolist()) != list(range(len(members))):
                return f"{layout.zone_id(z)}: positions {sorted(members.tolist())}"

    @row(["board.zone"], "cards.zoneId",
         "processing holds only the Trainer being resolved, during its choice")  # fmt: skip
    def _(f):
        for c in np.flatnonzero(f.b.zone == processing):
            trainer = f.pending and f.kind == TRAINER and int(f.s.effect_card) == c
            if not (trainer and t["is_trainer"][int(f.b.definition[c])]):
                return f"{card_id(int(c))}: a Trainer waits there only while it resolves"

    @row(["board.zone"], "cards.zoneId", "the Stadium zone holds at most one card, a Stadium")
    def _(f):
        for c in np.flatnonzero(f.b.zone == STADIUM_ZONE):
            if not t["is_stadium"][int(f.b.definition[c])]:
                return f"{card_id(int(c))}: only a Stadium card is in play as the Stadium"
        if int(f.counts[STADIUM_ZONE]) > 1:
            return f"{int(f.counts[STADIUM_ZONE])} Stadiums in play"

    @row(["board.zone"], "cards.zoneId",
         "cards are looked at only during a choice, by the player choosing")  # fmt: skip
    def _(f):
        for p in range(2):
            for c in np.flatnonzero(f.b.zone == _host_zone("looking", p)):
                if not (f.phase == PHASE["select"] and int(f.s.effect_player) == p):
                    return f"{card_id(int(c))}: cards are looked at only during a choice"

    @row(["board.visibility"], "cards.visibilityOverride",
         "no override, except the owner-only Pokémon placed face down during setup")  # fmt: skip
    def _(f):
        on_slot = ZONE_SLOT[np.clip(f.b.zone.astype(np.int64), 0, num_zones - 1)] >= 0
        want = np.where(on_slot & f.setup, zones.OWNER, zones.NO_OVERRIDE)
        bad = np.flatnonzero(f.b.visibility != want)
        if bad.size:
            c = int(bad[0])
            return f"{card_id(c)}: override {int(f.b.visibility[c])}, expected {int(want[c])}"

    @row(["board.card_attributes", "board.player_attributes"], "cards.attributes",
         "no card or player attributes (the layout names none)")  # fmt: skip
    def _(f):
        ca, pa = np.asarray(f.b.card_attributes), np.asarray(f.b.player_attributes)
        if ca.shape != (num_cards, len(layout.card_attributes)) or np.any(ca != 0):
            return f"card attributes of shape {ca.shape} with values the game never sets"
        if pa.shape != (2, len(layout.player_attributes)) or np.any(pa != 0):
            return f"player attributes of shape {pa.shape} with values the game never sets"

    @row(["board.version"], "version", "the count of applied zone commands, >= 0")
    def _(f):
        return None if int(f.b.version) >= 0 else f"{int(f.b.version)} < 0"

    # -- players and slots -----------------------------------------------------------------------
    for p in range(2):
        path = f"players.{pid(p)}"

        @row(["board.zone"], f"{path}.prizes",
             "at most 6 Prize cards; none in setup; at least 1 while play goes on")  # fmt: skip
        def _(f, p=p):
            prizes = int(f.counts[_host_zone("prizes", p)])
            if prizes > PRIZES or (not f.setup and prizes == 0 and f.winner == NO_WINNER):
                return f"{prizes} Prize cards while play goes on"
            if f.setup and prizes:
                return f"{prizes} Prize cards before the setup is done"

        for slot in range(NUM_SLOTS):
            spath = f"{path}.slots.{SLOT_ZONES[slot]}"

            @row(["board.zone", "board.definition"], spath,
                 "a pile: a Basic, the Pokémon evolved from it in order (a Stage 2 on the Basic by "
                 "Rare Candy), attached Energy, at most one Pokémon Tool")  # fmt: skip
            def _(f, p=p, slot=slot):
                defs = [int(f.b.definition[c]) for c in f.piles[p][slot]]
                mons = [d for d in defs if t["is_pokemon"][d]]
                if any(
                    not (t["is_pokemon"][d] or t["is_energy"][d] or t["is_tool"][d]) for d in defs
                ):
                    return "a slot holds Pokémon, attached Energy and Pokémon Tools only"
                if sum(bool(t["is_tool"][d]) for d in defs) > 1:
                    return "more than one Pokémon Tool on a Pokémon"
                if defs and (not mons or t["stage"][mons[0]] != STAGES.index("basic")):
                    return "a pile starts with a Basic Pokémon"
                if any(
                    not (t["onto"][hi, lo] or (k == 0 and t["candy"][hi, lo]))
                    for k, (lo, hi) in enumerate(zip(mons, mons[1:], strict=False))
                ):
                    # (Rare Candy puts a Stage 2 right on its Basic.)
                    return "each Pokémon of a pile evolves from the one below it"

            @row(["damage"], f"{spath}.damage",
                 "counters of 10, 0 on an empty slot, below the HP unless an attack is "
                 "resolving (its Knock Outs come when it finishes)")  # fmt: skip
            def _(f, p=p, slot=slot):
                damage, hp = int(f.s.damage[p, slot]), int(f.hp[p, slot])
                occupied = bool(f.occupied[p, slot])
                knockout_pending = f.kind == ATTACK and f.pending
                if (
                    damage < 0
                    or damage % 10
                    or (occupied and damage >= hp and not knockout_pending)
                    or (not occupied and damage)
                ):
                    return f"{damage} (HP {hp}): counters of 10 below the HP"

            @row(["since_turn"], f"{spath}.sinceTurn",
                 "in [0, turn]; 0 in setup and on an empty slot")  # fmt: skip
            def _(f, p=p, slot=slot):
                since = int(f.s.since_turn[p, slot])
                if not 0 <= since <= max(f.turn, 0):
                    return f"{since} after the current turn {f.turn}"
                if since and (f.setup or not f.occupied[p, slot]):
                    return f"{since} on an empty slot or in setup"

            @row(["ability_used"], f"{spath}.abilityUsed",
                 "only on a Pokémon in play that has an Ability, of the player whose turn it is")  # fmt: skip
            def _(f, p=p, slot=slot):
                if bool(f.s.ability_used[p, slot]) and (
                    f.setup or not f.occupied[p, slot] or p != f.owner_of_turn
                ):
                    return "an Ability used by a Pokémon not in play or not this turn"
                mons = [int(f.b.definition[c]) for c in f.piles[p][slot]]
                mons = [d for d in mons if t["is_pokemon"][d]]  # bottom to top; Energy aside
                if bool(f.s.ability_used[p, slot]) and mons and not t["activated"][mons[-1]]:
                    return f"{t['names'][mons[-1]]} has no Ability to use"

            @row(["cannot_attack_turn"], f"{spath}.cannotAttackTurn",
                 "0, or a turn of its owner in [3, turn + 2] on a Pokémon in play "
                 "(set to the turn + 2)")  # fmt: skip
            def _(f, p=p, slot=slot):
                v = int(f.s.cannot_attack_turn[p, slot])
                if v and (not 3 <= v <= f.turn + 2 or not f.occupied[p, slot]):
                    return f"{v} (turn {f.turn})"
                if v and _turn_owner(f, v) != p:
                    # Set in the attacker's own turn t to t + 2: its owner's next turn.
                    return f"{v} is a turn of the other player (set to the owner's next turn)"

            @row(["protected_turn"], f"{spath}.protectedTurn",
                 "0, or an opponent's turn in [2, turn + 1] on a Pokémon in play "
                 "(set to the turn + 1)")  # fmt: skip
            def _(f, p=p, slot=slot):
                v = int(f.s.protected_turn[p, slot])
                if v and (not 2 <= v <= f.turn + 1 or not f.occupied[p, slot]):
                    return f"{v} (turn {f.turn})"
                if v and _turn_owner(f, v) == p:
                    # Set in the owner's turn t to t + 1: the opponent's next turn.
                    return f"{v} is a turn of its owner (set to the opponent's next turn)"

            @row(["reduced_turn"], f"{spath}.reducedTurn",
                 "0, or an opponent's turn in [2, turn + 1] on an Active Pokémon whose card "
                 "reduces damage (set to the turn + 1)")  # fmt: skip
            def _(f, p=p, slot=slot):
                v = int(f.s.reduced_turn[p, slot])
                if not v:
                    return None
                if not 2 <= v <= f.turn + 1 or not f.occupied[p, slot] or slot != 0:
                    return f"{v} (turn {f.turn}, slot {slot})"
                if _turn_owner(f, v) == p:
                    return f"{v} is a turn of its owner (set to the opponent's next turn)"

            @row(["locked_turn", "locked_attack"], f"{spath}.lockedAttack",
                 "locked_turn 0 with locked_attack 0, or a turn of its owner in [2, turn + 1] "
                 "on an Active Pokémon, attack locked_attack (set by the opponent's attack to the "
                 "turn + 1)")  # fmt: skip
            def _(f, p=p, slot=slot):
                v, i = int(f.s.locked_turn[p, slot]), int(f.s.locked_attack[p, slot])
                if not v:
                    return f"attack {i} locked with no turn" if i else None
                if not 2 <= v <= f.turn + 1 or not f.occupied[p, slot] or slot != 0:
                    return f"{v} (turn {f.turn}, slot {slot})"
                if not 0 <= i < MAX_ATTACKS:
                    return f"attack {i}"
                if _turn_owner(f, v) != p:
                    return f"{v} is a turn of the opponent (set to the owner's next turn)"

        @row(["must_promote"], f"{path}.mustPromote",
             "only with an empty Active and a Benched Pokémon to promote")  # fmt: skip
        def _(f, p=p):
            if bool(f.s.must_promote[p]) and bool(f.occupied[p, 0]):
                return "true with an Active Pokémon"
            if bool(f.s.must_promote[p]) and not bool(f.occupied[p, 1:].any()):
                return "true with no Benched Pokémon to promote"

        @row(["board.zone"], f"{path}.slots.active",
             "an Active Pokémon while play goes on (unless promoting); none before setup's")  # fmt: skip
        def _(f, p=p):
            empty = not bool(f.occupied[p, 0])
            if empty and not (f.setup or bool(f.s.must_promote[p]) or f.winner != NO_WINNER):
                return "empty while play goes on"
            if empty and f.setup and bool(f.occupied[p, 1:].any()):
                return "a Bench before an Active in setup"

        @row(["rotated", "poisoned", "burned"], f"{path}.conditions",
             "a known rotated condition; conditions only on an Active Pokémon, after setup")  # fmt: skip
        def _(f, p=p):
            rotated = int(f.s.rotated[p])
            any_ = rotated or bool(f.s.poisoned[p]) or bool(f.s.burned[p])
            if not 0 <= rotated < len(ROTATED) or (any_ and not f.occupied[p, 0]):
                return "conditions without an Active Pokémon"
            if any_ and f.setup:
                return "conditions during setup"

    # -- setup records ---------------------------------------------------------------------------
    @row(["mulligans", "bonus_draws"], "game.bonusDraws",
         "mulligans >= 0; 0 <= bonus draws <= the opponent's extra mulligans (one player)")  # fmt: skip
    def _(f):
        m, d = f.s.mulligans.astype(int), f.s.bonus_draws.astype(int)
        if np.any(m < 0):
            return f"mulligans {m.tolist()} < 0"
        if np.any(d < 0) or np.any(d > np.maximum(m[::-1] - m, 0)):
            return f"{d.tolist()}: only one player may draw extra (mulligans {m.tolist()})"

    @row(["bonus_draws", "board.phase", "placed"], "game.bonusDraws",
         "bonus draws left exactly in mulligan_draw (before any placement)")  # fmt: skip
    def _(f):
        left = bool(np.any(f.s.bonus_draws > 0))
        if left != (f.phase == PHASE["mulligan_draw"]) or (left and bool(np.any(f.s.placed))):
            return f"{f.s.bonus_draws.tolist()} in phase {PHASES[f.phase]}"

    # -- the player to act -----------------------------------------------------------------------
    @row(["board.active_player"], "turnState.activePlayerId",
         "the player to act: the bonus drawer, the placer, the turn's owner, a promoter")  # fmt: skip
    def _(f):
        me, first = int(f.b.active_player), int(f.s.first_player)
        if f.phase == PHASE["mulligan_draw"]:
            want = 0 if f.s.bonus_draws[0] > 0 else 1
        elif f.phase in (PHASE["setup_active"], PHASE["setup_bench"]):
            want = 1 - first if f.s.placed[first] else first
        elif f.phase in (PHASE["main"], PHASE["retreat_payment"], PHASE["select"]):
            want = f.owner_of_turn
        elif f.phase == PHASE["promote"]:
            due = f.s.must_promote
            want = me if due[me] or not due.any() else 1 - me  # (none due: the next row)
        else:
            return None
        if me != want:
            return f"{pid(me)} acts in {PHASES[f.phase]}, not {pid(want)}"
        if f.phase == PHASE["setup_bench"] and not f.occupied[me, 0]:
            return "setup_bench before an Active Pokémon"
        if f.phase == PHASE["setup_active"] and f.occupied[me, 0]:
            return "setup_active with an Active Pokémon"

    # -- between turns ---------------------------------------------------------------------------
    @row(["must_promote", "board.phase"], "game.mustPromote", "promote exactly when one is due")
    def _(f):
        if (f.phase == PHASE["promote"]) != bool(np.any(f.s.must_promote)) and (
            f.winner == NO_WINNER
        ):
            return f"{f.s.must_promote.tolist()} in phase {PHASES[f.phase]}"

    @row(["promote_then"], "game.promoteThen",
         "THEN_CHECKUP, THEN_NEXT_TURN or THEN_CONTINUE; THEN_CHECKUP only between turns, "
         "THEN_CONTINUE only while promoting")  # fmt: skip
    def _(f):
        v = int(f.s.promote_then)
        if v not in (THEN_CHECKUP, THEN_NEXT_TURN, THEN_CONTINUE):
            return f"{v} is none of THEN_CHECKUP, THEN_NEXT_TURN, THEN_CONTINUE"
        if v == THEN_CHECKUP and f.phase not in (PHASE["promote"], PHASE["game_over"]):
            return f"the Checkup is due in phase {PHASES[f.phase]}"
        if v == THEN_CONTINUE and f.phase != PHASE["promote"]:
            return f"a turn goes on after promotions in phase {PHASES[f.phase]}"

    decks_names = set(t["ability_name_slot"][np.asarray(rules.pair_definitions)].ravel().tolist())

    @row(["abilities_used_by_name"], "game.abilitiesUsedByName",
         "one entry per Ability name of the one-a-turn-by-name kind; none used in setup; only "
         "names of Abilities the decks' cards have")  # fmt: skip
    def _(f):
        used = np.asarray(f.s.abilities_used_by_name)
        if used.shape != (rules.num_shared_abilities,):
            return f"shape {used.shape}, not ({rules.num_shared_abilities},)"
        if f.setup and used.any():
            return "an Ability used during setup"
        unknown = [int(k) for k in np.flatnonzero(used) if int(k) not in decks_names]
        if unknown:
            return f"name {unknown[0]} marked used: no card of the decks has that Ability"

    @row(["vstar_used", "deck_pair"], "game.vstarUsed",
         "a player's VSTAR Power used only if their deck holds a card that gives one")  # fmt: skip
    def _(f):
        for p in range(2):
            cards = rules.seat_deck(int(f.s.deck_pair), p).cards
            deck = [rules.cards.index(c) for c in cards]
            if bool(f.s.vstar_used[p]) and not t["vstar"][deck].any():
                return f"player {p + 1}: a VSTAR Power used, none in their deck"

    @row(["evolved_card", "evolved_slot"], "game.evolved",
         "-1 and -1 between actions (Rare Candy's Stage 2, transient within apply)")  # fmt: skip
    def _(f):
        card, slot = int(f.s.evolved_card), int(f.s.evolved_slot)
        return None if (card, slot) == (-1, -1) else f"card {card}, slot {slot}"

    @row(["effect_evolved"], "game.effectEvolved",
         "no activation: all false; else only Benched Pokémon of the activation's player that "
         "evolved this turn")  # fmt: skip
    def _(f):
        evolved = np.asarray(f.s.effect_evolved)
        if f.kind == 0 and evolved.any():
            return f"slots {np.flatnonzero(evolved).tolist()} with no activation"
        for slot in np.flatnonzero(evolved):
            player = int(f.s.effect_player)
            if slot == 0 or not f.occupied[player, slot]:
                return f"slot {int(slot)}: not an occupied Bench slot"
            if int(f.s.since_turn[player, slot]) != f.turn:
                return f"slot {int(slot)}: did not evolve this turn"

    @row(["turn_ending"], "game.turnEnding", "false between actions (transient within apply)")
    def _(f):
        return "true between actions" if bool(f.s.turn_ending) else None

    # -- turn limits -----------------------------------------------------------------------------
    @row(["energy_attached", "supporter_played", "retreated", "stadium_played", "stadium_used",
          "ko_by_attack", "ko_last_turn"], "game.turnFlags",
         "no turn flag in setup; no Supporter on turn 1; no retreat while paying for it")  # fmt: skip
    def _(f):
        flags = dict(
            energy_attached=bool(f.s.energy_attached),
            supporter_played=bool(f.s.supporter_played),
            retreated=bool(f.s.retreated),
            stadium_played=bool(f.s.stadium_played),
            stadium_used=bool(f.s.stadium_used),
            ko_by_attack=bool(np.any(f.s.ko_by_attack)),
            ko_last_turn=bool(np.any(f.s.ko_last_turn)),
        )
        if f.setup and any(flags.values()):
            return f"{[k for k, v in flags.items() if v]} during setup"
        if flags["supporter_played"] and f.turn == 1:
            return "a Supporter played on turn 1"
        if flags["retreated"] and f.phase == PHASE["retreat_payment"]:
            return "retreated while still paying for the retreat"

    @row(["retreat_to", "retreat_units_left"], "game.retreat",
         "a retreat payment: an occupied Bench target and units in [1, the retreat cost]; "
         "else 0 and 0")  # fmt: skip
    def _(f):
        to, left = int(f.s.retreat_to), int(f.s.retreat_units_left)
        paying = f.phase == PHASE["retreat_payment"]
        if paying != (to > 0) or (paying and left <= 0) or (not paying and left):
            return f"target {to}, units {left}"
        if paying:
            me = int(f.b.active_player)
            active = f.piles[me][0]
            mons = [int(f.b.definition[c]) for c in active if t["is_pokemon"][f.b.definition[c]]]
            cost = int(f.retreat_costs[me, 0]) if mons else 0  # Beach Court, Flare Float
            if not 1 <= to < NUM_SLOTS or not f.occupied[me, to] or left > cost:
                return f"target {to}, units {left} (cost {cost})"

    # -- effects ---------------------------------------------------------------------------------
    @row(["effect_kind"], "game.effect", "none, attack, Trainer, Ability or Stadium")
    def _(f):
        return None if f.kind in (0, ATTACK, TRAINER, ABILITY, STADIUM) else f"kind {f.kind}"

    @row(["selection.card"], "game.selection",
         "a choice pending exactly in select, always for an activation")  # fmt: skip
    def _(f):
        if f.pending != (f.phase == PHASE["select"]) or (f.pending and f.kind == 0):
            return f"a pending choice {f.pending} in phase {PHASES[f.phase]}"

    @row(["effect_kind", "queue.card"], "game.effect",
         "an activation in progress only with a choice pending")  # fmt: skip
    def _(f):
        if not f.pending and (f.kind != 0 or int(f.s.queue.card[0]) >= 0):
            return "an activation in progress with no choice pending"

    none = jax.tree.map(np.asarray, Selection.none())

    @row(["selection.card", "selection.row", "selection.slot", "selection.left",
          "selection.stage", "selection.picked", "selection.resume"], "game.selection",
         "no choice pending: Selection.none(); pending: the activation's card and slot, a row "
         "it has, left >= 1, stage PICK/PLACE/ORDER/FROM, picked -1 or an index, resume main")  # fmt: skip
    def _(f):
        sel = f.s.selection
        if not f.pending:
            for name in ("card", "row", "slot", "left", "stage", "picked", "resume"):
                if int(getattr(sel, name)) != int(getattr(none, name)):
                    return f"{name} {int(getattr(sel, name))} with no choice pending"
            return None
        card, r = int(sel.card), int(sel.row)
        if (
            not card < num_cards  # (the row lookup below reads its definition)
            or card != int(f.s.effect_card)
            or int(sel.slot) != int(f.s.effect_slot)
        ):
            return f"card {card} slot {int(sel.slot)}: not the activation's"
        if not 0 <= r < t["row_where"].shape[1] or t["row_where"][f.b.definition[card], r] < 0:
            return f"row {r}: not a row of {t['names'][int(f.b.definition[card])]}"
        if int(sel.left) < 1:
            return f"left {int(sel.left)} < 1 while pending"
        if int(sel.stage) not in range(len(SELECTION_STAGES)):
            return f"stage {int(sel.stage)}"
        if not -1 <= int(sel.picked) < num_cards:
            return f"picked {int(sel.picked)}"
        if int(sel.resume) != PHASE["main"]:
            return f"resume {int(sel.resume)}: activations come from the main phase"

    @row(["effect_player", "effect_card", "effect_slot", "attack_index"], "game.effect",
         "no activation: -1s; else the turn's player, their card (a Trainer in processing, a "
         "Stadium in play (anyone's) whose use is marked, "
         "an attacker or Ability user on their slot), the slot, the attack it has")  # fmt: skip
    def _(f):
        s = f.s
        player, card = int(s.effect_player), int(s.effect_card)
        slot, attack = int(s.effect_slot), int(s.attack_index)
        if f.kind == 0:
            if (player, card, slot, attack) != (-1, -1, -1, -1):
                return f"player {player}, card {card}, slot {slot}, attack {attack} with none"
            return None
        if player != f.owner_of_turn or not 0 <= card < num_cards:
            return f"player {player}, card {card}: not the turn player's"
        # An attack copied from the opponent's Active Pokémon (Genome Hacking) is its card's, used
        # by the turn player's Active Pokémon, whose own attack copies.
        copier = [int(f.b.definition[c]) for c in f.piles[player][0]] if f.piles[player][0] else []
        copied = (
            f.kind == ATTACK
            and int(f.b.owner[card]) == 1 - player
            and bool(f.piles[1 - player][0])
            and card in f.piles[1 - player][0]
            and any(t["copies_attack"][d].any() for d in copier)
        )
        if copied:
            player = 1 - player  # the card checked below is on the opponent's Active Pokémon
        elif int(f.b.owner[card]) != player and f.kind != STADIUM:  # either player's Stadium
            return f"player {player}, card {card}: not the turn player's"
        d = int(f.b.definition[card])
        if f.kind in (TRAINER, STADIUM):
            zone = processing if f.kind == TRAINER else STADIUM_ZONE
            if slot != -1 or attack != -1 or int(f.b.zone[card]) != zone:
                return f"a Trainer: slot {slot}, attack {attack}, zone {int(f.b.zone[card])}"
            if f.kind == STADIUM and not bool(f.s.stadium_used):
                return "a Stadium's effect in progress, not marked used this turn"
            return None
        on = [k for k in range(NUM_SLOTS) if f.piles[player][k] and card in f.piles[player][k]]
        # An attack or an Ability a Tool gives (TM: Evolution, Forest Seal Stone) is the Tool's,
        # attached to the Pokémon that uses it.
        tool_use = t["is_tool"][d] and (
            (f.kind == ATTACK and t["num_attacks"][d] > 0)
            or (f.kind == ABILITY and t["tool_ability"][d])
        )
        if not on or not (t["is_pokemon"][d] or tool_use):
            return f"{card_id(card)} is not a Pokémon in play"
        if f.kind == ATTACK and (slot != 0 or not 0 <= attack < int(t["num_attacks"][d])):
            return f"an attack: slot {slot}, attack {attack}"
        if f.kind == ABILITY and (not 0 <= slot < NUM_SLOTS or attack != -1):
            return f"an Ability: slot {slot}, attack {attack}"

    @row(["coin", "previous", "bonus_damage", "does_nothing", "damage_dealt"], "game.effect",
         "coin in {-1, 0, 1}; no activation: -1 and false/0; damage records only for an "
         "attack, which has dealt its damage when it waits on a choice (but one adding damage)")  # fmt: skip
    def _(f):
        s = f.s
        coin, bonus = int(s.coin), int(s.bonus_damage)
        flags = (bool(s.previous), bool(s.does_nothing), bool(s.damage_dealt))
        if coin not in (-1, 0, 1):
            return f"coin {coin}"
        if f.kind == 0 and (coin != -1 or bonus or any(flags)):
            return f"coin {coin}, bonus {bonus}, flags {flags} with no activation"
        if f.kind != ATTACK and (bonus or flags[1] or flags[2]):
            return f"bonus {bonus}, does_nothing {flags[1]}, damage_dealt {flags[2]} off an attack"
        if bonus < 0 or bonus % 10:
            return f"bonus damage {bonus}: counters of 10, >= 0"
        if f.kind == ATTACK and f.pending and not flags[2]:
            sel = s.selection
            op = int(t["row_op"][int(f.b.definition[int(sel.card)]), int(sel.row)])
            if OPS[op] not in MODIFIER_OPS:  # a choice that adds to the damage comes before it
                return "an attack waiting on a choice (not one adding damage) has dealt its damage"

    @row(["queue.card", "queue.row", "queue.slot", "queue.group"], "game.queue",
         "packed; each entry the activation's card and slot with a row it has, group in "
         "[-1, Q]; empty entries all -1")  # fmt: skip
    def _(f):
        q = f.s.queue
        size = q.card.shape[0]
        used = q.card >= 0
        if np.any(used[1:] & ~used[:-1]):
            return f"not packed: {q.card.tolist()}"
        for i in range(size):
            card, r, slot, group = (int(q.card[i]), int(q.row[i]), int(q.slot[i]),
                                    int(q.group[i]))  # fmt: skip
            if card < 0:
                if (card, r, slot, group) != (-1, -1, -1, -1):
                    return f"entry {i}: empty with ({card}, {r}, {slot}, {group})"
                continue
            if card >= num_cards or card != int(f.s.effect_card):
                return f"entry {i}: card {card} is not the activation's"
            if not 0 <= r < t["row_where"].shape[1] or t["row_where"][f.b.definition[card], r] < 0:
                return f"entry {i}: row {r} is not a row of its card"
            if slot != int(f.s.effect_slot) or not -1 <= group <= size:
                return f"entry {i}: slot {slot}, group {group}"

    exempt: dict[str, str] = {}
    return InvariantTable(rows, exempt)


def _invariants(rules: PokemonRules) -> InvariantTable:
    table = rules.__dict__.get("_invariant_table")
    if table is None:
        table = rules.__dict__.setdefault("_invariant_table", build_invariants(rules))
    return table


def _validate(rules: PokemonRules, state: PokemonState) -> None:
    """Host-side invariants of :meth:`PokemonRules.validate`: the invariant table over the facts."""
    _invariants(rules).validate(state_facts(rules, state))
