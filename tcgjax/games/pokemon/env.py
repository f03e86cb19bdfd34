"""The Pokémon TCG env: a thin adapter from :class:`~tcgjax.games.pokemon.rules.PokemonRules` to
the core ``Env`` template, registered as ``pokemon``.

``observation`` is :mod:`~tcgjax.games.pokemon.observation` from the deciding player's view (the
board by the chosen encoding, v2.1 or v1, then the hand, discard piles, counts, conditions, turn,
phase and the pending choice); ``current_player`` is the player who decides (the rules keep it in
``board.active_player``: the promoting player, the chooser of an effect, the placer in setup).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp

from tcgjax.core.env import Env, StepResult
from tcgjax.core.errors import ConfigError
from tcgjax.games.pokemon import observation as O
from tcgjax.games.pokemon import render
from tcgjax.games.pokemon import rules as R
from tcgjax.games.pokemon.cards import SHIPPED_CARDS, load_cards
from tcgjax.games.pokemon.decks import load_deck

__all__ = ["PokemonEnv", "encode_board", "decode_action"]

DeckSpec = str | os.PathLike | Mapping[str, Any]


class PokemonEnv(Env):
    """Two-player Pokémon TCG with the shipped card database and decks.

    Options:
      decks: two decks, one per seat: a shipped deck id (``"tapu_koko"``, ``"melmetal_dte"``), a
        path to a deck YAML file, or a mapping ``{name, cards: {card id: copies}}``; validated
        (60 cards, at most 4 of a name but basic Energy, a Basic Pokémon) with a ``ConfigError``
        naming the deck, the entry and the field.
      cards: the card database file (default ``None``: the shipped cards).
      encoding: ``"v2.1"`` (default; 68 dims a slot, P5) or ``"v1"`` (14 dims a slot), P3.
      max_turns: the game is truncated when turn ``max_turns + 1`` would begin (default 100).
      illegal_action, max_steps: see :class:`tcgjax.Env`.
    """

    id = "pokemon"
    # 2: both Actives Knocked Out at once, the player whose turn is next promotes first.
    version = "2"
    num_players = 2
    default_max_steps = 3000
    game_state_type = R.PokemonState
    rule_errors = R.RULE_ERRORS
    # Observation slices of per-definition card counts (for card-embedding networks).
    card_count_slices = ("my_hand", "my_looking", "my_discard", "opponent_discard")

    def __init__(
        self,
        *,
        decks: Sequence[DeckSpec] = ("tapu_koko", "melmetal_dte"),
        cards: str | os.PathLike | None = None,
        encoding: str = "v2.1",
        max_turns: int = 100,
        illegal_action: str = "reject",
        max_steps: int | None = None,
    ):
        if cards is not None and (
            isinstance(cards, bytes) or not isinstance(cards, str | os.PathLike)
        ):
            raise ConfigError(f"pokemon: option cards={cards!r} must be a path to a card file")
        if isinstance(decks, str | bytes | Mapping) or len(decks) != 2:
            raise ConfigError(f"pokemon: option decks={decks!r} must be two decks, one per seat")
        if encoding not in O.ENCODINGS:
            raise ConfigError(f"pokemon: option encoding={encoding!r} is not one of {O.ENCODINGS}")
        if (
            isinstance(max_turns, bool)
            or not isinstance(max_turns, int)
            or not 1 <= max_turns <= 10000
        ):
            raise ConfigError(
                f"pokemon: option max_turns={max_turns!r} must be an int in [1, 10000]"
            )
        registry = load_cards(SHIPPED_CARDS if cards is None else cards)
        self.decks = [load_deck(deck, registry) for deck in decks]
        self.rules = R.PokemonRules(self.decks, cards=registry, max_turns=max_turns)
        self.observer = O.Observer(self.rules, encoding)
        self.observers = {e: O.Observer(self.rules, e) for e in O.ENCODINGS}
        self.encoding = encoding
        self.max_turns = max_turns
        self.action_layout = self.rules.actions
        self.observation_layout = self.observer.layout
        self.board_layout = self.rules.layout
        self.num_card_ids = len(registry)
        # v1 writes each slot's registry index in column 0 (-1 empty): a card-embedding network
        # sees it in place; v2.1 has no id, only the static features gathered by it (P5).
        self.card_id_positions = (("board", 0),) if encoding == "v1" else ()
        self.observation_scale = O.network_input_scale(self.observation_layout, encoding)
        super().__init__(
            illegal_action=illegal_action,
            max_steps=max_steps,
            decks=[dict(d) if isinstance(d, Mapping) else os.fspath(d) for d in decks],
            cards=None if cards is None else os.fspath(cards),
            encoding=encoding,
            max_turns=max_turns,
        )

    def _init_game(self, key: jax.Array) -> R.PokemonState:
        return self.rules.init(key)

    def _apply_action(self, game, action, key) -> StepResult:
        return StepResult(*self.rules.apply(game, action, key))

    def _legal_action_mask(self, game) -> jax.Array:
        return self.rules.legal_action_mask(game)

    def _action_error(self, game, action) -> jax.Array:
        return self.rules.action_errors(game)[action]

    def _current_player(self, game) -> jax.Array:
        return game.board.active_player.astype(jnp.int32)

    def _is_terminal(self, game) -> jax.Array:
        return (game.winner >= 0) & (game.end_reason != R.END["turn_limit"])

    def _is_truncated(self, game) -> jax.Array:
        return game.end_reason == R.END["turn_limit"]

    def _observe(self, game, player) -> jax.Array:
        return self.observer.observe(game, player)

    def _forfeit(self, game, loser):
        return self.rules.forfeit(game, loser)

    def _picture(self, state, viewer: int | None):
        return render.picture(self, state, viewer)

    def _validate_game(self, game) -> None:
        self.rules.validate(game)

    def action_name(self, action: int) -> str:
        """``play[sv1-180]``, ``evolve[sv3-68->bench2]``, ``select_slot[opponent bench1]``, ..."""
        if not 0 <= int(action) < self.num_actions:
            return f"<out of range: {int(action)}>"
        kind, args = decode_action(self, action)
        if kind in ("play", "select_card"):
            return f"{kind}[{args['card']}]"
        if kind in ("evolve", "attach"):
            return f"{kind}[{args['card']}->{args['slot']}]"
        if kind == "select_slot":
            return f"select_slot[{args['side']} {args['slot']}]"
        if kind == "retreat":
            return f"retreat[->{args['to']}]"
        if kind == "ability":
            return f"ability[{args['slot']}]"
        return self.action_layout.name(int(action))


def encode_board(env: PokemonEnv, state, player, version: str = "v2.1") -> jax.Array:
    """float32[12, 68] (``version="v2.1"``) or float32[12, 14] (``"v1"``): the board of ``state``
    (a ``tcgjax.State`` or a rules state) seen by ``player``, their 6 slots first (P1); what the
    player can't see (a face-down Pokémon in setup) is an empty slot. jit- and vmap-safe."""
    if version not in O.ENCODINGS:
        raise ConfigError(f"encode_board: version={version!r} is not one of {O.ENCODINGS}")
    game = getattr(state, "game", state)
    return env.observers[version].board(game, jnp.asarray(player, jnp.int32))[0]


def decode_action(env: PokemonEnv, action: int) -> tuple[str, dict[str, Any]]:
    """What an action id means: ``("evolve", {"card": "sv3-68", "slot": "bench2"})``,
    ``("select_slot", {"side": "opponent", "slot": "bench1"})``, ``("attack", {"index": 1})``.

    Raises:
      ConfigError: ``action`` outside ``[0, num_actions)``.
    """
    kind, offset = env.action_layout.decode(int(action))
    ids = env.rules.cards.ids
    if kind in ("play", "select_card"):
        return kind, {"card": ids[offset]}
    if kind in ("evolve", "attach"):
        d, slot = divmod(offset, R.NUM_SLOTS)
        return kind, {"card": ids[d], "slot": R.SLOT_ZONES[slot]}
    if kind == "select_slot":
        side = "own" if offset < R.NUM_SLOTS else "opponent"
        return kind, {"side": side, "slot": R.SLOT_ZONES[offset % R.NUM_SLOTS]}
    if kind == "retreat":
        return kind, {"to": R.SLOT_ZONES[offset + 1]}
    if kind == "ability":
        return kind, {"slot": R.SLOT_ZONES[offset]}
    if kind == "attack":
        return kind, {"index": offset}
    return kind, {}
