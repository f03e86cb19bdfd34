"""Scripted opponents: a greedy heuristic player per game, and the uniform random player.

A *policy* here is a function ``(state, key) -> action`` for ONE game: ``state`` a ``tcgjax.State``,
``key`` a PRNG key (consumed), the result an int32[] action index. Callers ``jax.vmap`` it over a
batch (``tcgjax.train.ppo``, ``tcgjax.train.evaluate``). Every policy is pure JAX: jittable,
vmappable, no Python branch on traced values.

The heuristics score every action of the game's layout with table lookups and ``jnp.where`` (integer
scores, higher is better), keep only the legal ones (``state.legal_action_mask``), and take the best.
**Ties** between equally scored legal actions are broken uniformly at random with ``key``, so a
heuristic is deterministic wherever its preference is strict (the scripted tests rely on that) and
still varies its play among equal choices (a deterministic opponent in a deterministic game would
replay a single line, which a learner could memorise). A heuristic always returns a legal action: at
terminal states, where the mask is all True, any action is a no-op.

Heuristics are registered by env id in :data:`HEURISTICS` (a dict, no if/elif): each entry is a
factory ``env -> policy``. :func:`heuristic_policy` looks one up; factories are cached per env, so the
same env always gets the same function object and jitted evaluations of it are reused.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from tcgjax.core import zones
from tcgjax.core.env import Env, State
from tcgjax.core.errors import ConfigError
from tcgjax.games.deployment.rules import pick
from tcgjax.games.duel import rules as duel_rules
from tcgjax.wrappers import random_legal_action

__all__ = [
    "HEURISTICS",
    "Policy",
    "heuristic_policy",
    "random_policy",
    "deployment_heuristic",
    "duel_heuristic",
    "digimon_heuristic",
    "pokemon_heuristic",
    "best_legal_action",
]

Policy = Callable[[State, jax.Array], jax.Array]


def best_legal_action(scores: jax.Array, legal_action_mask: jax.Array, key: jax.Array) -> jax.Array:
    """The legal action with the highest integer score, ties broken uniformly at random with ``key``.

    Args:
      scores: int32[A], higher is better (any value; only legal entries are compared).
      legal_action_mask: bool[A], True = legal; never all False for a live state.
      key: PRNG key (consumed) for the tie-break.
    Returns:
      int32[] action index; always a legal one when any action is legal.
    """
    scores = scores.astype(jnp.int32)
    lowest = jnp.iinfo(jnp.int32).min
    best = jnp.max(jnp.where(legal_action_mask, scores, lowest))
    # Exact integer comparison first, noise only among the tied best: no float rounding of scores.
    tied = legal_action_mask & (scores == best)
    noise = jax.random.uniform(key, scores.shape)
    return jnp.argmax(jnp.where(tied, noise, -1.0)).astype(jnp.int32)


def _scores_in_layout_order(env: Env, parts: dict[str, jax.Array]) -> jax.Array:
    """Concatenate per-range scores in the order of ``env.action_layout`` (checked sizes). int32[A]."""
    layout = env.action_layout
    if set(parts) != set(layout.ranges):
        raise ConfigError(
            f"env {env.id!r}: scores for {sorted(parts)}, layout {list(layout.ranges)}"
        )
    out = []
    for name, (_, size) in layout.ranges.items():
        part = jnp.asarray(parts[name], jnp.int32).reshape(-1)
        if part.shape[0] != size:
            raise ConfigError(f"env {env.id!r}: {part.shape[0]} scores for range {name!r} ({size})")
        out.append(part)
    return jnp.concatenate(out)


# --------------------------------------------------------------------------------------------------
# deployment


@functools.lru_cache(maxsize=64)
def deployment_heuristic(env: Env) -> Policy:
    """Greedy player of the ``deployment`` hex wargame (any scenario).

    Scores, per phase (only legal actions compete; ``pass_deployment`` is legal only when nothing
    else is, so it is taken exactly then):

    * **Deployment** — ``deploy(u, h)``: the pool hex nearest the enemy first (nearest *deployed*
      enemy unit once the enemy has placed some, else the enemy's pool), then the one nearest the
      board centre ``(cols // 2, rows // 2)`` (units stay together and face the middle); among units,
      the one with the most HP takes the best hex (the toughest unit stands in front).
    * **Movement** — ``move(u, d)`` scores 2 when unit ``u`` has no living enemy within its range and
      the step strictly reduces its hex distance to the nearest living enemy; other moves score -1,
      ``end_phase`` 1. So units advance one hex at a time until something is in range (a sniper stops
      at range 4, a tank closes in), never step back and never oscillate; once no move helps, the
      phase ends.
    * **Shooting** — ``shoot(u, t)``, in order of preference: the shot kills the target (its HP <= the
      shooter's damage); the target has the lowest HP; the target deals the most damage; the least
      damage wasted beyond the target's HP (so a damage-1 unit finishes a 1-HP target and the tank
      keeps its 2 damage for another). Every legal shot beats ``end_phase``, taken when no enemy is in
      range of a unit that has not shot.

    Distances are hex distances (``env.rules.t["distance"]``), walls ignored as in the rules' range
    check; a move blocked by walls simply never scores.
    """
    rules, s = env.rules, env.scenario
    t = rules.t
    U = rules.U
    big = np.int32(1 << 12)  # larger than any board distance
    dist = jnp.asarray(t["distance"], jnp.int32)  # [H, H]
    nbr = jnp.asarray(t["neighbours"], jnp.int32)  # [H, 6]
    centre_dist = dist[s.flat(s.cols // 2, s.rows // 2)]  # [H]

    # Static: each pool hex's distance to the nearest usable hex of the enemy's pool. [2, Hs]
    pool_np = np.asarray(s.tables["pool_hex"], np.int64)
    dist_np = np.asarray(s.tables["distance"], np.int64)
    wall_np = np.asarray(s.tables["wall"])
    pool_front = np.full(pool_np.shape, int(big), np.int32)
    for p in range(2):
        enemy = [h for h in pool_np[1 - p] if h >= 0 and not wall_np[h]]
        for slot, h in enumerate(pool_np[p]):
            if h >= 0 and enemy:
                pool_front[p, slot] = min(dist_np[h, e] for e in enemy)
    pool_front = jnp.asarray(pool_front)
    pool_hex = jnp.asarray(t["pool_hex"], jnp.int32)  # [2, Hs]
    by_player = lambda x: jnp.asarray(x).reshape(2, U).astype(jnp.int32)  # noqa: E731
    unit_hp, unit_range = by_player(t["unit_hp"]), by_player(t["unit_range"])
    unit_damage = by_player(t["unit_damage"])

    def policy(state: State, key: jax.Array) -> jax.Array:
        game = state.game
        me = game.active_player.astype(jnp.int32)
        enemy = 1 - me
        alive = rules.alive(game).reshape(2, U)
        flat = jnp.maximum(rules.flat(game), 0).reshape(2, U)
        my_hex, enemy_hex = pick(me, flat), pick(enemy, flat)  # [U]
        enemy_alive = pick(enemy, alive)  # [U]

        def nearest_enemy(hexes):  # int32[...] -> distance to the nearest living enemy
            d = dist[hexes[..., None], enemy_hex]  # [..., U]
            return jnp.min(jnp.where(enemy_alive, d, big), axis=-1)

        # Deployment: [U, Hs]
        pool = pick(me, pool_hex)
        safe_pool = jnp.maximum(pool, 0)
        front = jnp.where(jnp.any(enemy_alive), nearest_enemy(safe_pool), pick(me, pool_front))
        hex_score = -(front * 256 + centre_dist[safe_pool])
        deploy = hex_score[None, :] * 128 + jnp.clip(pick(me, unit_hp), 0, 127)[:, None]

        # Movement: [U, 6]
        d_now = nearest_enemy(my_hex)  # [U]
        d_new = nearest_enemy(jnp.maximum(nbr[my_hex], 0))  # [U, 6]
        out_of_range = d_now > pick(me, unit_range)
        move = jnp.where(out_of_range[:, None] & (d_new < d_now[:, None]), 2, -1)

        # Shooting: [U shooter, U target]
        hp = pick(enemy, game.hp.reshape(2, U).astype(jnp.int32))[None, :]
        damage = pick(me, unit_damage)[:, None]
        kill = hp <= damage
        waste = jnp.clip(damage - hp, 0, 63)
        threat = jnp.clip(pick(enemy, unit_damage), 0, 63)[None, :]
        shoot = (
            2
            + kill * (1 << 20)
            + (127 - jnp.clip(hp, 0, 127)) * (1 << 12)
            + threat * 64
            + 63
            - waste
        )

        scores = _scores_in_layout_order(
            env,
            {
                "deploy": deploy,
                "pass_deployment": jnp.zeros(1, jnp.int32),
                "move": move,
                "shoot": shoot,
                "end_phase": jnp.ones(1, jnp.int32),
            },
        )
        return best_legal_action(scores, state.legal_action_mask, key)

    return policy


# --------------------------------------------------------------------------------------------------
# duel


@functools.lru_cache(maxsize=64)
def duel_heuristic(env: Env) -> Policy:
    """Greedy player of ``duel``: play the most expensive affordable card, attack with every ready
    creature, then end the turn.

    Scores: ``play[i]`` = 1000 + 16 * cost + power of the card at hand position ``i`` (the mask keeps
    only affordable cards, and creatures only while the board has room, so with a full board the best
    affordable spell is played); ``attack[j]`` = 100 + power of the creature at board slot ``j`` (the
    mask keeps only ready creatures); ``end_turn`` = 0, taken once nothing else is legal. Playing
    before attacking costs nothing: creatures enter exhausted, and damage order does not matter.
    """
    cards = env.rules.cards
    cost, power = cards["cost"].astype(jnp.int32), cards["power"].astype(jnp.int32)

    def policy(state: State, key: jax.Array) -> jax.Array:
        board = state.game.board
        me = board.active_player.astype(jnp.int32)
        hand = zones.zone_slots(board, duel_rules.zone_of("hand", me), duel_rules.HAND_SIZE)
        field = zones.zone_slots(board, duel_rules.zone_of("board", me), duel_rules.BOARD_SIZE)
        hand_def = board.definition[jnp.maximum(hand, 0)]
        field_def = board.definition[jnp.maximum(field, 0)]
        scores = _scores_in_layout_order(
            env,
            {
                "play": 1000 + 16 * cost[hand_def] + power[hand_def],
                "attack": 100 + power[field_def],
                "end_turn": jnp.zeros(1, jnp.int32),
            },
        )
        return best_legal_action(scores, state.legal_action_mask, key)

    return policy


# --------------------------------------------------------------------------------------------------
# digimon


@functools.lru_cache(maxsize=64)
def digimon_heuristic(env: Env) -> Policy:
    """Greedy player of the Digimon Card Game (any decks): attack first, then grow the board.

    Attacks cost no memory while playing and digivolving do (and may hand the turn over), so the
    scores rank, among the legal actions of the phase:

    * **Breeding** — move a Lv.3+ Digimon out (30), hatch (20), else pass (0).
    * **Main** — attack a suspended opponent Digimon it beats on DP (5000 + its DP / 100), attack
      the player (4000 + the attacker's DP / 100); then <Blast>-free growth: digivolve
      (3000 + 100 × the new level − cost, the draw bonus included), DNA (2900), play a Digimon
      (2000 + DP / 100), a Tamer (1900), an Option (1800), activate a [Main] effect (1500); pass (0).
    * **Block timing** — block (100 + the blocker's DP / 100) when the blocker survives (its DP
      at least the attacker's) or when a hit on the player would leave them with 1 security card
      or fewer; else decline (50).
    * **Counter timing** — <Blast Digivolve> whenever legal (100), else decline.
    * **Selections** — against the opponent's Digimon: the highest DP first; on their own: the
      highest DP first; any other choice equally (ties at random: the order of simultaneous
      triggers too); declining an optional or "up to" row last (the effects of the shipped
      cards help their user).
    * **Mulligan** — keep an opening hand that holds a Lv.3 Digimon, else redraw it.

    Ties are broken at random (:func:`best_legal_action`); every score is an int32 table lookup.
    """
    from tcgjax.games.digimon import actions as A
    from tcgjax.games.digimon import rules as R

    rules = env.rules
    phase_id = {name: i for i, name in enumerate(A.PHASES)}
    ids = jnp.arange(A.NUM_ACTIONS)
    start = A.LAYOUT.start

    def policy(state: State, key: jax.Array) -> jax.Array:
        game = state.game
        phase = game.board.phase.astype(jnp.int32)
        active = game.board.active_player.astype(jnp.int32)
        perm = rules.permanents(game)
        dp = perm.dp[:, : A.FIELD_SLOTS] // 100  # [2, 12], in hundreds
        mine, theirs = dp[active], dp[1 - active]
        # Main: attacks [12 attackers, 15 targets].
        target_dp = jnp.concatenate([theirs, jnp.zeros(3, jnp.int32)])  # [15]
        beats = mine[:, None] > target_dp[None, :]
        attack = jnp.where(
            jnp.arange(A.FIELD_STRIDE)[None, :] == A.TARGET_PLAYER,
            4000 + mine[:, None],
            jnp.where(beats, 5000 + target_dp[None, :], 1000),
        )
        attack = jnp.pad(attack, ((0, 20 - A.FIELD_SLOTS), (0, 0)))
        hand = rules.hand(game, active)  # [30]
        card = lambda name, cards: rules._card(game, name, cards).astype(jnp.int32)  # noqa: E731
        kind = card("kind", hand)
        play = jnp.select(
            [kind == R.DIGIMON, kind == R.TAMER],
            [2000 + card("dp", hand) // 100, jnp.full(kind.shape, 1900)],
            1800,
        )
        tops, _ = rules.stacks(game)
        cost = jnp.maximum(rules.digivolve_costs(game, hand, tops[active]), 0)  # [30, 13]
        digivolve = 3000 + 100 * card("level", hand)[:, None] - cost
        digivolve = jnp.pad(digivolve, ((0, 40 - A.HAND_SLOTS), (0, A.FIELD_STRIDE - R.NUM_SLOTS)))
        main = _scores_in_layout_order(
            env,
            {
                "play": play,
                "trash_hand": jnp.ones(A.HAND_SLOTS, jnp.int32),
                "hatch": jnp.full(1, 20),
                "move_breeding": jnp.full(1, 30),
                "pass": jnp.zeros(1, jnp.int32),
                "dna": jnp.full(A.HAND_SLOTS, 2900),
                "unused": jnp.zeros(7, jnp.int32),
                "attack": attack,
                "digivolve": digivolve,
                "activate": jnp.full(1000, 1500),
                "source": jnp.ones(120, jnp.int32),
            },
        )
        # Block timing: the defender (not the active player) picks a blocker or declines.
        attacker_dp = mine[jnp.clip(game.attacker.astype(jnp.int32), 0, A.FIELD_SLOTS - 1)]
        security = zones.zone_count(game.board, R.zone_of("security", 1 - active))
        at_player = game.attack_target == A.TARGET_PLAYER
        worth = (theirs >= attacker_dp) | (at_player & (security <= 2))
        block = jnp.where(worth, 100 + theirs, 10)  # [12] (the defender's own Digimon)
        blocking = (ids >= start("attack")) & (ids < start("attack") + A.FIELD_SLOTS)
        block_scores = jnp.where(blocking, block[jnp.clip(ids - start("attack"), 0, 11)], 0)
        block_scores = jnp.where(ids == start("pass"), 50, block_scores)
        # Selections: 112 + i the opponent's Digimon, 100 + i own, by DP; 62 (decline) last.
        chooser = state.current_player
        own_sel, opp_sel = dp[chooser], dp[1 - chooser]
        select = jnp.where(ids == start("pass"), 0, 10)
        select = select + jnp.where(
            (ids >= 100) & (ids < 112), own_sel[jnp.clip(ids - 100, 0, 11)], 0
        )
        select = select + jnp.where(
            (ids >= 112) & (ids < 124), opp_sel[jnp.clip(ids - 112, 0, 11)], 0
        )
        # Mulligan: keep (1000) a hand with a Lv.3 Digimon to play early, else redraw (1001).
        own_hand = rules.hand(game, chooser)
        rookie = jnp.any((card("kind", own_hand) == R.DIGIMON) & (card("level", own_hand) == 3))
        keep = jnp.where(rookie, 30, 5)
        mulligan = jnp.where(ids == R.KEEP_HAND, keep, jnp.where(ids == R.REDRAW_HAND, 20, 0))
        select = jnp.where(game.selection.stage == R.CHOICE_MULLIGAN, mulligan, select)
        counter = jnp.where(ids == start("pass"), 0, 100)
        selecting = game.selection.card >= 0
        scores = jnp.where(
            selecting,
            select,
            jnp.where(
                phase == phase_id["block_timing"],
                block_scores,
                jnp.where(phase == phase_id["counter_timing"], counter, main),
            ),
        )
        return best_legal_action(scores, state.legal_action_mask, key)

    return policy


@functools.lru_cache(maxsize=64)
def pokemon_heuristic(env: Env) -> Policy:
    """Greedy player of the Pokémon TCG (any decks): build the board, then attack hardest.

    Scores, among the legal actions of the phase (attacking ends the turn, so it comes after
    everything that grows the board):

    * **Main** — evolve (900 + the new HP / 10), an Ability (850), a Supporter (800), the effect
      of the Stadium in play (750), bench a Basic (700 + HP / 10), attach an Energy to the Active
      (650; 600 to a Benched Pokémon), an Item, a Tool or a Stadium (550), a Supporter that
      replaces the hand (Professor's Research, Iono, Youngster: 540, once the hand has been
      played), attack (100 + the printed damage / 10 of that attack: the strongest legal one);
      end the turn (10); retreat only when the Active can't attack (5, else 0).
    * **Setup** — the Basic with the most HP as Active and every Basic to the Bench (700 + HP /
      10), then ``done``; take every extra mulligan draw (``yes``).
    * **Choices** — promote or choose the Pokémon with the most remaining HP among one's own, the
      one with the least among the opponent's; cards equally (ties at random); of the opponent's
      attacks, the one with the most printed damage; stopping an "up to" choice last.

    Ties are broken at random (:func:`best_legal_action`); every score is a table lookup.
    """
    from tcgjax.games.pokemon import rules as R

    rules = env.rules
    layout = env.action_layout
    n = len(rules.cards)
    hp10 = rules.hp // 10  # [N]
    supporter = rules.is_supporter
    trainer = rules.is_trainer
    from tcgjax.games.pokemon.effects import OP

    # A Supporter whose first row discards or shuffles away the hand: after the hand is played.
    replaces_hand = (
        (rules.trainer_first_op == OP["discard_hand_draw"])
        | (rules.trainer_first_op == OP["hands_to_bottom_draw_prizes"])
        | (rules.trainer_first_op == OP["shuffle_hand_draw"])
    )

    def policy(state: State, key: jax.Array) -> jax.Array:
        game = state.game
        phase = game.board.phase.astype(jnp.int32)
        me = game.board.active_player.astype(jnp.int32)
        view = rules.slot_view(game)
        supporter_score = jnp.where(replaces_hand, 540, 800)
        play = jnp.where(trainer, jnp.where(supporter, supporter_score, 550), 700 + hp10)
        evolve = jnp.broadcast_to((900 + hp10)[:, None], (n, R.NUM_SLOTS))
        attach = jnp.broadcast_to(
            jnp.where(jnp.arange(R.NUM_SLOTS) == 0, 650, 600)[None, :], (n, R.NUM_SLOTS)
        )
        # In the Main phase the player's own attacks; in a choice of one of the opponent's
        # attacks (Memory Skip locks it, Genome Hacking uses it) the opponent's: the strongest.
        owner = jnp.where(phase == R.PHASE["select"], 1 - me, me)
        attack_def, attack_row, _ = rules.attack_sources(view, owner)  # its own, then its Tool's
        attack = 100 + rules.attack_damage[attack_def, jnp.minimum(attack_row, 3)] // 10  # [4]
        can_attack = jnp.any(
            state.legal_action_mask[layout.start("attack") : layout.start("attack") + 4]
        )
        remaining = (view["hp"] - game.damage.astype(jnp.int32)) // 10  # [2, 6]
        slots = jnp.concatenate([100 + remaining[me], 100 - remaining[1 - me]])
        choosing = phase == R.PHASE["select"]
        scores = _scores_in_layout_order(
            env,
            {
                "play": play,
                "evolve": evolve,
                "attach": attach,
                "ability": jnp.full(R.NUM_SLOTS, 850),
                "tool_ability": jnp.full(R.NUM_SLOTS, 840),
                "stadium": jnp.full(1, 750),
                "retreat": jnp.full(R.NUM_SLOTS - 1, jnp.where(can_attack, 0, 5)),
                "attack": attack,
                "select_card": jnp.full(n, 50),
                "select_slot": slots,
                "yes": jnp.full(1, 50),
                "done": jnp.full(1, jnp.where(choosing, 0, 1)),
                "end_turn": jnp.full(1, 10),
            },
        )
        return best_legal_action(scores, state.legal_action_mask, key)

    return policy


# --------------------------------------------------------------------------------------------------
# registry and the random player

HEURISTICS: dict[str, Callable[[Env], Policy]] = {
    "deployment": deployment_heuristic,
    "duel": duel_heuristic,
    "digimon": digimon_heuristic,
    "pokemon": pokemon_heuristic,
}


def heuristic_policy(env: Env) -> Policy:
    """The scripted greedy player of ``env``'s game: ``(state, key) -> int32[] action`` for one game.

    Raises:
      ConfigError: no heuristic is registered for ``env.id`` (names it and lists those that exist).
    """
    env_id = getattr(env, "id", None)
    try:
        factory = HEURISTICS[env_id]
    except (KeyError, TypeError):
        raise ConfigError(
            f"env {env_id!r}: no heuristic opponent; available: {sorted(HEURISTICS)}"
        ) from None
    return factory(env)


@functools.lru_cache(maxsize=64)
def random_policy(env: Env) -> Policy:
    """Uniform over the legal actions (``tcgjax.wrappers.random_legal_action``), for any env."""
    del env  # the mask is all it needs; the argument keeps the factory signature of HEURISTICS

    def policy(state: State, key: jax.Array) -> jax.Array:
        return random_legal_action(key, state.legal_action_mask)

    return policy
