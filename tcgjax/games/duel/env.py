"""The *duel* env: a thin adapter from ``rules.DuelRules`` to the core ``Env`` template.

Observation (``observation_layout.table()``), from the viewer's side: ``me`` first, then the opponent.
Hidden cards (the opponent's hand, both decks) are never encoded; only zone sizes, which are public.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from tcgjax.core import render, visibility, zones
from tcgjax.core.env import Env, StepResult
from tcgjax.core.observation import ObservationLayout
from tcgjax.games.duel import rules
from tcgjax.games.duel.rules import ACTIONS, BOARD_SIZE, HAND_SIZE, DuelState

OBSERVATION = ObservationLayout(
    [
        ("life", (2,), "life of me, opponent / 12"),
        ("mana", (2, 2), "(mana, max_mana) of me, opponent / 5"),
        ("my_turn", (1,), "1 if the viewer is the player to act"),
        ("turn", (1,), "turn number / 30"),
        ("hand", (HAND_SIZE, 4), "my hand by position: present, cost/5, power/6, is_creature"),
        ("hand_counts", (2,), "hand sizes of me, opponent / 6"),
        ("deck_counts", (2,), "deck sizes of me, opponent / 12"),
        ("boards", (2, BOARD_SIZE, 3), "board slots of me, opponent: present, power/6, exhausted"),
        ("discard_counts", (2,), "discard sizes of me, opponent / 12"),
    ]
)


class DuelEnv(Env):
    """Two-player minimal card duel (see ``rules`` for the rules). ``tcgjax.make("duel")``."""

    id = "duel"
    version = "2"
    num_players = 2
    action_layout = ACTIONS
    observation_layout = OBSERVATION
    default_max_steps = 1000
    rule_errors = rules.RULE_ERRORS
    game_state_type = DuelState

    def __init__(self, *, illegal_action: str = "reject", max_steps: int | None = None):
        self.rules = rules.DuelRules()
        self.board_layout = self.rules.layout
        super().__init__(illegal_action=illegal_action, max_steps=max_steps)

    def _init_game(self, key: jax.Array) -> DuelState:
        return self.rules.init(key)

    def _apply_action(self, game: DuelState, action: jax.Array, key: jax.Array) -> StepResult:
        del key  # duel has no chance event after setup
        return StepResult(*self.rules.apply(game, action))

    def _legal_action_mask(self, game: DuelState) -> jax.Array:
        return self.rules.legal_action_mask(game)

    def _action_error(self, game: DuelState, action: jax.Array) -> jax.Array:
        return self.rules.action_errors(game)[action]

    def _current_player(self, game: DuelState) -> jax.Array:
        return game.board.active_player.astype(jnp.int32)

    def _is_terminal(self, game: DuelState) -> jax.Array:
        return game.winner >= 0

    def _forfeit(self, game: DuelState, loser: jax.Array) -> DuelState:
        return self.rules.forfeit(game, loser)

    def _picture(self, state, viewer):
        game, layout = state.game, self.board_layout
        board = game.board
        attrs = {name: k for k, name in enumerate(layout.player_attributes)}
        exhausted = layout.card_attributes.index("exhausted")

        def label(card):
            row = render.card_definition(layout, board, card)
            kind = "creature" if row["kind"] == rules.CREATURE else "spell"
            tired = ", exhausted" if board.card_attributes[card, exhausted] else ""
            return row["name"], f"{kind} {row['cost']}/{row['power']}{tired}"

        def side(p):
            life, mana, top = (int(board.player_attributes[p, attrs[k]]) for k in attrs)
            zone = {k: int(rules.zone_of(k, p)) for k in rules.ZONE_KINDS}
            return render.SideView(
                p,
                rows=(
                    (render.ZoneView(zone["board"], "board"),),
                    (
                        render.ZoneView(zone["hand"], "hand"),
                        render.ZoneView(zone["deck"], "deck", "pile"),
                        render.ZoneView(zone["discard"], "discard", "pile"),
                    ),
                ),
                summary=f"life {life}, mana {mana}/{top}",
            )

        reason = rules.END_REASONS[int(game.end_reason)]
        return render.card_board_picture(
            layout,
            board,
            viewer,
            title=f"duel: turn {int(board.turn_number)}",
            header=[render.status_line(state, int(game.winner), reason)],
            sides=[side(0), side(1)],
            card_label=label,
        )

    def _describe_action(self, state, action: int, viewer: int | None) -> str:
        """``play Goblin (hand 0)``, ``cast Spark (hand 1)``, ``attack with Wolf (board 0)``,
        ``end the turn``: the card at the id's hand position or board slot (0-based) of the
        player to act. Every card a duel move names is public once the move is made."""
        del viewer
        board = state.game.board
        me = int(board.active_player)
        kind, offset = ACTIONS.decode(action)
        if kind == "end_turn":
            return "end the turn"
        where = "hand" if kind == "play" else "board"
        zone = int(rules.zone_of(where, me))
        at = np.flatnonzero(
            (np.asarray(board.zone) == zone) & (np.asarray(board.position) == offset)
        )
        if at.size == 0:
            return f"{kind} (nothing at {where} {offset})"
        row = render.card_definition(self.board_layout, board, int(at[0]))
        if kind == "attack":
            return f"attack with {row['name']} ({where} {offset})"
        verb = "cast" if row["kind"] == rules.SPELL else "play"
        return f"{verb} {row['name']} ({where} {offset})"

    def _validate_game(self, game: DuelState) -> None:
        self.rules.validate(game)

    def _observation_bound_table(self) -> dict:
        """Every slice bounded (see ``Env.observation_bounds``), from the rules' limits and the
        decklist's cards (``cards.yaml``)."""
        table = self.rules.cards.numpy
        deck = np.asarray(self.rules.deck)
        power, cost = table["power"][deck], table["cost"][deck]
        creature_power = power[table["kind"][deck] == rules.CREATURE]
        cards = len(rules.DECKLIST)
        # No card returns to a deck: after the opening hand each turn's draw empties it, and
        # player 1 (who draws on the odd turns, from turn 1) decks out on their 10th turn.
        last_turn = 2 * (cards - rules.OPENING_HAND) + 1
        return {
            # Nothing heals; a play or an attack that takes a player to 0 or less ends the game
            # at once, so life is at least 1 - the strongest card's power.
            "life": ((1 - power.max()) / rules.START_LIFE, 1.0),
            "mana": (0.0, 1.0),  # 0 <= mana <= max_mana <= MAX_MANA
            "my_turn": (0.0, 1.0),
            "turn": (1 / 30, last_turn / 30),
            # present, cost/5, power/6, is_creature: 0 for an empty position.
            "hand": (0.0, [1.0, cost.max() / 5, power.max() / 6, 1.0]),
            "hand_counts": (0.0, 1.0),  # the hand holds at most HAND_SIZE
            "deck_counts": (0.0, (cards - rules.OPENING_HAND) / cards),  # dealt before turn 1
            # present, power/6 (creatures only), exhausted.
            "boards": (0.0, [1.0, creature_power.max() / 6, 1.0]),
            "discard_counts": (0.0, 1.0),  # at most the decklist
        }

    def _observe(self, game: DuelState, player: jax.Array) -> jax.Array:
        board, layout, cards = game.board, self.board_layout, self.rules.cards
        seats = jnp.stack([player, 1 - player])  # me, opponent
        attrs = board.player_attributes[seats].astype(jnp.float32)
        counts = zones.zone_counts(layout, board).reshape(2, len(rules.ZONE_KINDS))[seats]
        seen = visibility.visible_definitions(layout, board, player)  # -1 where hidden

        hand = zones.zone_slots(board, rules.zone_of("hand", player), HAND_SIZE)
        hand_def = jnp.where(hand >= 0, seen[jnp.maximum(hand, 0)], -1)
        known = hand_def >= 0
        safe_def = jnp.maximum(hand_def, 0)
        hand_features = (
            jnp.stack(
                [
                    known,
                    cards["cost"][safe_def] / 5.0,
                    cards["power"][safe_def] / 6.0,
                    cards["kind"][safe_def] == rules.CREATURE,
                ],
                axis=-1,
            )
            * known[:, None]
        )

        def board_features(seat):
            slot = zones.zone_slots(board, rules.zone_of("board", seat), BOARD_SIZE)
            present = slot >= 0
            card = jnp.maximum(slot, 0)
            seen_def = jnp.maximum(seen[card], 0)
            return jnp.stack(
                [
                    present,
                    cards["power"][seen_def] / 6.0 * present,
                    board.card_attributes[card, rules.EXHAUSTED] * present,
                ],
                axis=-1,
            )

        return OBSERVATION.pack(
            {
                "life": attrs[:, rules.LIFE] / rules.START_LIFE,
                "mana": attrs[:, rules.MANA : rules.MAX_MANA_ATTR + 1] / rules.MAX_MANA,
                "my_turn": (board.active_player == player)[None],
                "turn": board.turn_number[None] / 30.0,
                "hand": hand_features,
                "hand_counts": counts[:, 1] / HAND_SIZE,
                "deck_counts": counts[:, 0] / len(rules.DECKLIST),
                "boards": jax.vmap(board_features)(seats),
                "discard_counts": counts[:, 3] / len(rules.DECKLIST),
            }
        )
