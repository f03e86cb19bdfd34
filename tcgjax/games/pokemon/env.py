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
import numpy as np

from tcgjax.core.decks import parse_matchups
from tcgjax.core.env import Env, StepResult
from tcgjax.core.errors import ConfigError
from tcgjax.games.pokemon import observation as O
from tcgjax.games.pokemon import render
from tcgjax.games.pokemon import rules as R
from tcgjax.games.pokemon.cards import SHIPPED_CARDS, load_cards
from tcgjax.games.pokemon.decks import SHIPPED_DECKS, load_deck

__all__ = ["PokemonEnv", "encode_board", "decode_action", "describe_action"]

DeckSpec = str | os.PathLike | Mapping[str, Any]


class PokemonEnv(Env):
    """Two-player Pokémon TCG with the shipped card database and decks.

    Options:
      decks: two decks, one per seat: a shipped deck id (``"tapu_koko"``, ``"melmetal_dte"``), a
        path to a deck YAML file, or a mapping ``{name, cards: {card id: copies}}``; validated
        (60 cards, at most 4 of a name but basic Energy, a Basic Pokémon) with a ``ConfigError``
        naming the deck, the entry and the field. Or a list of such pairs (``[["tapu_koko",
        "melmetal_dte"], ["charizard_ex", "miraidon_ex"]]``): each game draws one uniformly
        (``env.matchups`` names them, ``env.matchup(state)`` is the game's; a mixed-deck
        training run is evaluated per matchup).
      cards: the card database file (default ``None``: the shipped cards).
      allow_vanilla: play cards whose effects the card file does not implement (marked
        ``stats_only``, as the importer writes them) as cards without effects (default
        ``False``: a deck with such a card is refused with a ``ConfigError`` naming it).
      encoding: ``"v2.1"`` (default; 68 dims a slot, P5) or ``"v1"`` (14 dims a slot), P3.
      max_turns: the game is truncated when turn ``max_turns + 1`` would begin (default 100).
      illegal_action, max_steps: see :class:`tcgjax.Env`.
    """

    id = "pokemon"
    # 2: both Actives Knocked Out at once, the player whose turn is next promotes first.
    # 3: an effect row's gate is a conjunction (issue #32); Eelektross's Suction Shock paralyzes
    # only after a switch (it paralyzed on heads with no opponent's Bench).
    # 4: a Knock Out within a turn (an HP bonus lost paying a retreat cost) happens at once, the
    # owner promotes and the turn goes on; an evolved Pokémon may use its own Ability.
    # 5: the Chien-Pao ex deck's 14 cards (47 definitions: 702 actions); Abilities without
    # once_per_turn are unlimited; "optional" rows are "up to"; a fourth selection stage.
    # 6: the League Battle Decks' shared Trainers, Pokémon Tools and Rare Candy (59 cards: 870
    # actions); the observation's slot flags gain "holds a Tool".
    # 9: the Gardevoir ex deck's 7 cards (89 cards: 1297 actions); attack[i] also names the
    # opponent's attack in a choice's fifth stage; slot flags gain "an attack locked".
    # 10: the state records its matchup (`deck_pair`, game.deckPair in JSON states): `decks` may
    # be a list of pairs, one drawn per game. A single pair plays the games of version 9.
    version = "10"
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
        allow_vanilla: bool = False,
        encoding: str = "v2.1",
        max_turns: int = 100,
        illegal_action: str = "reject",
        max_steps: int | None = None,
    ):
        if cards is not None and (
            isinstance(cards, bytes) or not isinstance(cards, str | os.PathLike)
        ):
            raise ConfigError(f"pokemon: option cards={cards!r} must be a path to a card file")
        if not isinstance(allow_vanilla, bool):
            raise ConfigError(
                f"pokemon: option allow_vanilla={allow_vanilla!r} must be True or False"
            )
        matchups = parse_matchups("pokemon", decks)
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
        self.decks = [
            load_deck(deck, registry, allow_vanilla=allow_vanilla) for deck in matchups.specs
        ]
        self.rules = R.PokemonRules(
            self.decks, cards=registry, max_turns=max_turns, pairs=matchups.pairs
        )
        self.matchups = matchups.names(self.decks, SHIPPED_DECKS)
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
            decks=matchups.option,
            cards=None if cards is None else os.fspath(cards),
            allow_vanilla=allow_vanilla,
            encoding=encoding,
            max_turns=max_turns,
        )

    def _init_game(self, key: jax.Array) -> R.PokemonState:
        return self.rules.init(key)

    def _matchup(self, game) -> jax.Array:
        return game.deck_pair.astype(jnp.int32)

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

    def _observation_bound_table(self) -> dict:
        return self.observer.bound_table()  # the observation module's, for this encoding

    def _forfeit(self, game, loser):
        return self.rules.forfeit(game, loser)

    def _picture(self, state, viewer: int | None):
        return render.picture(self, state, viewer)

    def _validate_game(self, game) -> None:
        self.rules.validate(game)

    def action_name(self, action: int) -> str:
        """The phase-free name of an id: ``play[sv1-180]``, ``evolve[sv3-68->bench2]``,
        ``select_slot[opponent bench1]``, ... (a move in a state: :meth:`describe_action`)."""
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
        if kind in ("ability", "tool_ability"):
            return f"{kind}[{args['slot']}]"
        return self.action_layout.name(int(action))

    def _describe_action(self, state, action: int, viewer: int | None) -> str:
        return describe_action(self, state, action, viewer=viewer)


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
    if kind in ("ability", "tool_ability"):
        return kind, {"slot": R.SLOT_ZONES[offset]}
    if kind == "attack":
        return kind, {"index": offset}
    return kind, {}


# What a card choice of an effect row picks from and where the card goes (``effects.SOURCE_OF``,
# ``effects.DESTINATION_OF``), in words.
_FROM = {"deck": "the deck", "discard": "the discard pile", "looking": "the cards looked at",
         "hand": "the hand"}  # fmt: skip
_SLOT_VERBS = {"gust": "bring {} to the Active Spot", "switch": "switch in {}", "heal": "heal {}",
               "bench_damage": "damage {}",
               "discard_energy_for_damage": "discard Energy from {} (for damage)"}  # fmt: skip


def describe_action(env: PokemonEnv, state, action: int, *, viewer: int | None = None) -> str:
    """The name of ``action`` as a move in ``state`` (one concrete game), host-side: what
    ``env.describe_action`` returns. Cards by their names, Pokémon with their place (``Active``,
    ``Bench 2``, ``the opponent's Bench 1``), by phase: ``put Tynamo face down as the Active
    Pokémon`` (setup), ``evolve Tynamo (Active) into Eelektrik``, ``attach Basic Lightning Energy
    to Tadbulb (Bench 2)``, ``attack with Tadbulb (Active): Stampede``, ``retreat Tynamo (Active)
    for Tadbulb (Bench 2)``, ``discard Basic Lightning Energy from Tynamo (Active) (retreat
    cost)``, ``promote Tadbulb (Bench 2) to the Active Spot``, ``put Yamper from the deck onto the
    Bench`` (an effect's card choice), ``switch in Tadbulb (Bench 2)`` (its Pokémon choice),
    ``end the turn``.

    For a ``viewer`` other than the player to act, a card the move keeps hidden from them (a
    Pokémon put face down in setup, a card taken from the deck or the cards looked at into the
    hand, a card put on the bottom of the deck) is ``a card``.
    """
    from tcgjax.core import render as core_render
    from tcgjax.games.pokemon import effects as E
    from tcgjax.games.pokemon.cards import OPS

    game = jax.device_get(state.game)
    board, sel = game.board, game.selection
    registry = env.rules.cards
    phase = R.PHASES[int(board.phase)]
    me = int(board.active_player)
    hidden = viewer is not None and viewer != me
    slots = jax.device_get(core_render.host_jit(env.rules.slot_view)(game))
    kind, offset = env.action_layout.decode(int(action))

    def card(d: int) -> str:
        return registry.definition(registry.ids[d])["name"] if d > 0 else "no card (padding id)"

    def secret(d: int) -> str:
        return "a card" if hidden else card(d)

    def place(player: int, slot: int) -> str:
        where = "Active" if slot == 0 else f"Bench {slot}"
        return where if player == me else f"the opponent's {where}"

    def pokemon(player: int, slot: int) -> str:
        if not bool(slots["occupied"][player, slot]):
            return f"nothing ({place(player, slot)} is empty)"
        return f"{card(int(slots['definition'][player, slot]))} ({place(player, slot)})"

    def rows(player: int, slot: int, field: str) -> tuple:
        d = int(slots["definition"][player, slot])
        return registry.definition(registry.ids[d])[field] if d > 0 else ()

    def pending() -> tuple[str, int]:
        """The op of the row waiting on the choice, and its card's definition."""
        source = int(sel.card)
        if source < 0 or int(sel.row) < 0:
            return "", 0
        d = int(board.definition[source])
        return OPS[int(np.asarray(registry.numpy["effects.op"])[d, int(sel.row)])], d

    if kind == "play":
        if phase == "setup_active":
            return f"put {secret(offset)} face down as the Active Pokémon"
        if phase == "setup_bench":
            return f"put {secret(offset)} face down on the Bench"
        basic = bool(np.asarray(env.rules.is_basic)[offset]) and offset > 0
        stadium = bool(np.asarray(env.rules.is_stadium)[offset])
        return f"play {card(offset)}" + (
            " onto the Bench" if basic else " as the Stadium" if stadium else ""
        )
    if kind in ("evolve", "attach"):
        d, slot = divmod(offset, R.NUM_SLOTS)
        if kind == "evolve":
            return f"evolve {pokemon(me, slot)} into {card(d)}"
        return f"attach {card(d)} to {pokemon(me, slot)}"
    if kind == "ability":
        named = [a["name"] for a in rows(me, offset, "abilities")]
        ability = named[0] if named else "its Ability (it has none)"
        return f"use {ability} of {pokemon(me, offset)}"
    if kind == "tool_ability":
        tool = int(slots["tool_definition"][me, offset])
        named = registry.definition(registry.ids[tool])["abilities"] if tool > 0 else []
        ability = named[0]["name"] if named else "its Tool's Ability (it holds none)"
        return f"use {ability} of {card(tool)} held by {pokemon(me, offset)}"
    if kind == "retreat":
        return f"retreat {pokemon(me, 0)} for {pokemon(me, offset + 1)}"
    if kind == "stadium":
        in_play = np.flatnonzero(np.asarray(board.zone) == R.STADIUM_ZONE)
        name = (
            card(int(board.definition[in_play[0]])) if in_play.size else "no Stadium (none in play)"
        )
        return f"use the Stadium {name}"
    if kind == "attack":
        # In a choice of the opponent's attacks (Memory Skip, Genome Hacking), theirs.
        choosing = phase == "select" and int(sel.stage) == E.ATTACK_STAGE
        owner = 1 - me if choosing else me
        attacks = list(rows(owner, 0, "attacks"))
        tool = int(slots["tool_definition"][owner, 0])  # a Tool's attacks follow (TM: Evolution)
        attacks += registry.definition(registry.ids[tool])["attacks"] if tool > 0 else []
        name = attacks[offset]["name"] if offset < len(attacks) else f"attack {offset} (none)"
        if choosing:
            op, _ = pending()
            verb = "lock" if op == "lock_attack" else "use as this attack"
            return f"choose {pokemon(owner, 0)}'s attack {name} ({verb})"
        return f"attack with {pokemon(me, 0)}: {name}"
    if kind == "select_card":
        if phase == "retreat_payment":
            return f"discard {card(offset)} from {pokemon(me, 0)} (retreat cost)"
        if phase != "select":
            return f"choose {card(offset)}"
        op, _ = pending()
        if int(sel.stage) == E.ORDER:
            return f"put {secret(offset)} on the bottom of the deck"
        source, dest = E.SOURCE_OF.get(op, ""), E.DESTINATION_OF.get(op, "")
        holder = int(sel.picked) if int(sel.stage) == E.FROM else int(sel.slot)
        origin = pokemon(me, max(holder, 0)) if source == "attached" else _FROM.get(source)
        origin = f" from {origin}" if origin else ""
        if dest == "discard":
            return f"discard {card(offset)}{origin}"
        if dest == "attach":
            return f"choose {card(offset)}{origin} to attach"
        if dest == "evolve":
            return f"choose {card(offset)}{origin} to evolve a Basic Pokémon into"
        if dest == "bench":
            return f"put {card(offset)}{origin} onto the Bench"
        if dest == "deck":
            return f"shuffle {card(offset)}{origin} into the deck"
        if dest == "hand":
            shown = secret(offset) if source in ("deck", "looking") else card(offset)
            return f"put {shown}{origin} into the hand"
        return f"choose {card(offset)}{origin}"
    if kind == "select_slot":
        side = me if offset < R.NUM_SLOTS else 1 - me
        target = pokemon(side, offset % R.NUM_SLOTS)
        if phase == "promote":
            return f"promote {target} to the Active Spot"
        if phase == "select" and int(sel.stage) == E.PLACE:
            picked = int(sel.picked)
            chosen = card(int(board.definition[picked])) if picked >= 0 else "the chosen card"
            if pending()[0] == "rare_candy":
                return f"evolve {target} into {chosen}"
            return f"attach {chosen} to {target}"
        if phase == "select":
            return _SLOT_VERBS.get(pending()[0], "choose {}").format(target)
        return f"choose {target}"
    if kind == "yes":
        return "draw 1 more card (the opponent's mulligan)" if phase == "mulligan_draw" else "yes"
    if kind == "done":
        if phase == "mulligan_draw":
            return "draw no more cards"
        if phase == "setup_bench":
            return "finish setting up the Bench"
        if phase == "select":
            _, d = pending()
            return f"choose nothing more for {card(d) if d else 'the pending effect'}"
        return "done"
    if kind == "end_turn":
        return "end the turn"
    return env.action_name(action)
