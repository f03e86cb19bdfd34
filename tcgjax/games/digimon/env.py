"""The Digimon env: a thin adapter from :class:`~tcgjax.games.digimon.rules.DigimonRules` to the core
``Env`` template, registered as ``digimon`` (the game's README says what the rules cover).

``observation`` is ``board_state_tensor(state, current_player, view="player")`` (981 floats), the
mask is the spec's 2120-id mask, ``current_player`` is the player who decides (the defender during
the attack timings).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tcgjax.core.decks import parse_matchups
from tcgjax.core.env import Env, State, StepResult
from tcgjax.core.errors import ConfigError
from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon import observation as O
from tcgjax.games.digimon import render
from tcgjax.games.digimon import rules as R
from tcgjax.games.digimon.cards import STARTER_CARDS, load_cards

__all__ = ["DigimonEnv", "decode_action", "board_state_tensor"]

DeckSpec = str | os.PathLike | Mapping[str, Any]


class DigimonEnv(Env):
    """Two-player Digimon Card Game with the spec's action space and tensor.

    Options:
      decks: two decks, one per seat: a shipped deck id (``"st1"``, ``"st2"``), a path to a deck
        YAML file, or a mapping ``{name, eggs: {number: copies}, main: {number: copies}}``.
        Validated on construction (``ConfigError`` naming the deck, the entry and the field).
        Or a list of such pairs (``[["st1", "st2"], ["st3", "st4"]]``): each game draws one
        uniformly (``env.matchups`` names them, ``env.matchup(state)`` is the game's); the decks
        one seat may hold need as many Digi-Eggs (every shipped deck has 4).
      cards: the card database file (default ``None``: the shipped starter-deck cards).
      allow_vanilla: play cards whose effects the card file does not implement (marked
        ``stats_only``, as the importer writes them) as cards without effects (default
        ``False``: a deck with such a card is refused with a ``ConfigError`` naming it).
      memory_rule: ``"official"`` (default, G1: a cost may take the gauge to 10 on the
        opponent's side; the turn ends once it is 1 or more there) or ``"spec"`` (the spec's
        wording: a cost must not exceed the current memory; the turn ends at 0 or below).
      timing_order: ``"official"`` (default, G7: counter timing, then block timing) or
        ``"spec"`` (the spec's attack flow: block timing, then counter timing).
      mulligan: ``True`` (default, G10: after the deal each player, the first player first, may
        once shuffle the opening hand back and draw 5: SelectEffectChoice ids 1000 keep / 1001
        redraw) or ``False`` (the spec's setup: the game starts in the first Breeding phase).
      trigger_order: ``"chosen"`` (default, G10: a player orders their own simultaneous
        triggered effects when the order can matter: SelectEffectChoice ids 1000 + i) or
        ``"fixed"`` (the turn player's first, then by slot and stack position: no decision; for
        speed studies).
      max_turns: a turn limit (default ``None``: none): once turn ``max_turns`` has ended the
        game is truncated (``truncated``; no winner, the rules' end reason stays ``none``).
      illegal_action, max_steps: see :class:`tcgjax.Env`.
    """

    id = "digimon"
    # 1: the deal of a given key changed (rules.init written out); 2: the effect queue and the
    # pending selection are the core's records (`queue`, `selection` in a JSON state); 3: issue
    # #32: the mulligan and the chosen order of simultaneous triggers (G10), the queue's `group`,
    # the breeding area out of effects' reach, security listed top first in the tensor (G9), a
    # deck-out ends in the Draw phase; 4: the ST-3 cards (card ids 33-48), deletion at 0 DP (G11),
    # <Security A. -N> (G12), rows outside their window or spent once-per-turn rows no longer queue;
    # 5: the ST-4 cards (card ids 49-64; ST-5's move to 65-80) and the ST-6 cards (81-96), the
    # triggers `opponent_digimon_suspended`, `won_battle` and `own_digimon_deleted`, the ops
    # `trash_security_top` and `play_from_trash`, the confirm choice of an optional row that
    # chooses nothing (selection stage 3), "if you do" (`gates_next`), `play_costs`
    # 6: the state records its matchup (`deck_pair`, game.deck_pair in JSON states): `decks` may
    # be a list of pairs, one drawn per game. A single pair plays the games of version 5. The
    # conditions `own_hand_at_least` / `own_hand_at_most`, `attacking_the_player`,
    # `own_security_at_most_opponents`, `colors` on choose_* targets, the flag `else_next`,
    # continuous `restrict` on self with `attack_player` / `be_blocked` (no shipped card uses
    # them; the rule error `cannot_attack_player` is new); the trigger `opponent_digimon_deleted`;
    # the card filter `name_has`. 7: the ST-7 and ST-8 cards (their BT-1 reprints sort first:
    # card ids 1-6, the older cards move up by 6, ST-7 and ST-8 at 103-126), the condition
    # `opponent_has_level_at_least`, the ops `digivolve_into` (special digivolution) and
    # `play_self_after_battle`, `delete` under a total-DP budget (`max_total_dp`, its picks in
    # `selection.picked`).
    version = "7"
    num_players = 2
    action_layout = A.LAYOUT
    observation_layout = O.LAYOUT
    default_max_steps = 2000
    game_state_type = R.DigimonState
    rule_errors = R.RULE_ERRORS
    # Observation slices that hold nothing but card ids (for card-embedding networks).
    card_id_slices = (
        "my_hand",
        "opponent_hand",
        "my_trash",
        "opponent_trash",
        "my_security",
        "opponent_security",
        "revealed",
    )
    # Card ids a policy must see in place, because actions name their positions: hand cards
    # (play / digivolve / trash by hand index), revealed cards (SelectReveal) and each
    # permanent's top card (column 0 of a 31-float slot: digivolve / attack / select by slot).
    # Per-entry factors for a network's input (the tensor keeps the spec's raw DP, turns, phases).
    observation_scale = O.INPUT_SCALE
    card_id_positions = (
        ("my_hand", -1),
        ("revealed", -1),
        ("my_field", 0),
        ("opponent_field", 0),
        ("my_breeding", 0),
        ("opponent_breeding", 0),
    )

    def __init__(
        self,
        *,
        decks: Sequence[DeckSpec] = ("st1", "st2"),
        cards: str | os.PathLike | None = None,
        allow_vanilla: bool = False,
        memory_rule: str = "official",
        timing_order: str = "official",
        mulligan: bool = True,
        trigger_order: str = "chosen",
        max_turns: int | None = None,
        illegal_action: str = "reject",
        max_steps: int | None = None,
    ):
        from tcgjax.games.digimon.decks import SHIPPED_DECKS, load_deck

        if cards is not None and (
            isinstance(cards, bytes) or not isinstance(cards, str | os.PathLike)
        ):
            raise ConfigError(f"digimon: option cards={cards!r} must be a path to a card file")
        if not isinstance(allow_vanilla, bool):
            raise ConfigError(
                f"digimon: option allow_vanilla={allow_vanilla!r} must be True or False"
            )
        matchups = parse_matchups("digimon", decks)
        if max_turns is not None and (
            isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1
        ):
            raise ConfigError(
                f"digimon: option max_turns={max_turns!r} must be an int >= 1 or None"
            )
        self.max_turns = max_turns
        registry = load_cards(STARTER_CARDS if cards is None else cards)
        loaded = [load_deck(deck, registry, allow_vanilla=allow_vanilla) for deck in matchups.specs]
        self.decks = loaded  # the pool: with one pair, seat 0's deck then seat 1's
        self.num_card_ids = len(registry.ids)  # card definitions, 0 = padding (G3)
        self.rules = R.DigimonRules(
            registry,
            [(d.eggs, d.main) for d in loaded],
            memory_rule=memory_rule,
            timing_order=timing_order,
            mulligan=mulligan,
            trigger_order=trigger_order,
            pairs=matchups.pairs,
        )
        self.matchups = matchups.names(loaded, SHIPPED_DECKS)
        self.board_layout = self.rules.layout
        super().__init__(
            illegal_action=illegal_action,
            max_steps=max_steps,
            decks=matchups.option,
            cards=None if cards is None else os.fspath(cards),
            allow_vanilla=allow_vanilla,
            memory_rule=memory_rule,
            timing_order=timing_order,
            mulligan=mulligan,
            trigger_order=trigger_order,
            max_turns=max_turns,
        )

    def _init_game(self, key: jax.Array) -> R.DigimonState:
        return self.rules.init(key)

    def _matchup(self, game) -> jax.Array:
        return game.deck_pair.astype(jnp.int32)

    def _apply_action(self, game, action, key) -> StepResult:
        return StepResult(*self.rules.apply(game, action, key))

    def _legal_action_mask(self, game) -> jax.Array:
        return self.rules.legal_action_mask(game)

    def _action_error(self, game, action) -> jax.Array:
        return self.rules.action_error(game, action)

    def _current_player(self, game) -> jax.Array:
        return self.rules.decider(game)

    def _is_terminal(self, game) -> jax.Array:
        return game.winner >= 0

    def _is_truncated(self, game) -> jax.Array:
        if self.max_turns is None:
            return np.bool_(False)  # a host constant: no dispatch when ``validate`` asks
        return game.board.turn_number > self.max_turns

    def _observe(self, game, player) -> jax.Array:
        return O.board_state_tensor(self.rules, game, player, "player")

    def _observe_acting(self, game, player, mask) -> jax.Array:
        # The selection block's count of valid choices is read off the mask of the step.
        return O.board_state_tensor(self.rules, game, player, "player", legal=mask)

    def _observation_bound_table(self) -> dict:
        return O.bound_table(self.rules)  # the observation module's, for these decks

    def _forfeit(self, game, loser):
        return self.rules.forfeit(game, loser)

    def _picture(self, state: State, viewer: int | None):
        return render.picture(self, state, viewer)

    def _validate_game(self, game) -> None:
        self.rules.validate(game)

    def action_name(self, action: int) -> str:
        """The phase-free name of an id: its Main-phase meaning (``attack[0->field0]``, also in
        the block timing where it blocks); a move in a state: :meth:`describe_action`."""
        if not 0 <= int(action) < self.num_actions:
            return f"<out of range: {int(action)}>"
        return A.action_name(int(action))

    def _describe_action(self, state: State, action: int, viewer: int | None) -> str:
        # The phase resolves the id (G4), the state names its cards (actions.describe).
        return A.describe(self.rules, state.game, action, viewer=viewer)


def decode_action(env: DigimonEnv, state: State, action: int) -> A.Decoded:
    """What ``action`` means in ``state`` (phase-aware, decision G4), e.g.
    ``Decoded(kind="attack", a=2, b=12, name="attack[2->player]")``."""
    return A.decode(int(state.game.board.phase), action)


def board_state_tensor(env: DigimonEnv, state: State, player, view: str = "player") -> jax.Array:
    """The spec's 981-float tensor of ``state`` for ``player`` (``view="player"|"omniscient"``)."""
    return O.board_state_tensor(env.rules, state.game, jnp.asarray(player, jnp.int32), view)
