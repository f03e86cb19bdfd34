"""Random play with the shipped starter decks for 100,000+ steps: card conservation, zone bounds,
memory range, phase and selection-record consistency after every step (checked on device for
every game), the full host-side ``validate`` on a sample, never an empty mask, and the phases the
games reach."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon import rules as R
from tcgjax.games.digimon.cards import load_cards
from tcgjax.games.digimon.decks import load_deck
from tcgjax.wrappers import random_legal_action

BATCH, STEPS = 128, 800  # 102,400 steps
PHASE = {name: i for i, name in enumerate(A.PHASES)}


@pytest.fixture(scope="module")
def rules():
    registry = load_cards()
    decks = [load_deck(d, registry) for d in ("st1", "st2")]
    return R.DigimonRules(registry, [(d.eggs, d.main) for d in decks])


def device_invariants(rules):
    """bool[5] per game: the invariants ``validate`` checks, as array tests on device."""
    layout = rules.layout
    zone_owner = jnp.asarray([-1 if owner is None else owner for _, owner in layout.zones])
    owner_of_card = rules._initial_board.owner
    decision = jnp.asarray([PHASE[p] for p in R.DECISION_PHASES])
    selection = jnp.asarray([PHASE[p] for p in A.SELECTION_PHASES])

    def check(state):
        board = state.board
        zone = board.zone.astype(jnp.int32)
        owners = zone_owner[zone]
        conserved = jnp.all(board.owner == owner_of_card) & jnp.all(
            (owners < 0) | (owners == board.owner)
        )
        counts = jnp.bincount(zone, length=layout.num_zones)
        in_bounds = jnp.all(counts <= jnp.asarray(layout.zone_max_size))
        memory = jnp.abs(state.memory.astype(jnp.int32)) <= R.MEMORY_LIMIT
        ongoing = state.winner < 0
        phase_ok = ~ongoing | jnp.any(board.phase == decision)
        paused = jnp.any(board.phase == selection)
        record_ok = ((state.sel_card >= 0) == paused) & (
            (state.attack_stage < 0) == (state.attacker < 0)
        )
        return jnp.stack([conserved, in_bounds, memory, phase_ok, record_ok])

    return check


def test_random_play_keeps_every_invariant_for_100k_steps(rules):
    check = device_invariants(rules)
    init = jax.vmap(rules.init)

    @jax.jit
    def run(state, key):
        def body(carry, key):
            state = carry
            k_act, k_reset = jax.random.split(key)
            mask = jax.vmap(rules.legal_action_mask)(state)
            ongoing = state.winner < 0
            stuck = ongoing & ~jnp.any(mask, axis=-1)
            action = random_legal_action(k_act, mask)
            stepped, _ = jax.vmap(rules.apply)(state, action)
            ok = jax.vmap(check)(stepped)
            reset = init(jax.random.split(k_reset, BATCH))
            done = stepped.winner >= 0
            nxt = jax.tree.map(
                lambda a, b: jnp.where(done.reshape((-1,) + (1,) * (a.ndim - 1)), a, b),
                reset,
                stepped,
            )
            return nxt, (ok, stuck, stepped.board.phase, done, stepped.end_reason)

        return jax.lax.scan(body, state, jax.random.split(key, 100))

    state = jax.jit(init)(jax.random.split(jax.random.PRNGKey(0), BATCH))
    key = jax.random.PRNGKey(1)
    phases, ends, finished = set(), set(), 0
    for chunk in range(STEPS // 100):
        key, k = jax.random.split(key)
        state, (ok, stuck, phase, done, reason) = run(state, k)
        ok, stuck = np.asarray(ok), np.asarray(stuck)
        names = ("conservation", "zone bounds", "memory", "decision phase", "records")
        for i, name in enumerate(names):
            assert ok[..., i].all(), f"chunk {chunk}: {name} broken in {(~ok[..., i]).sum()} states"
        assert not stuck.any(), f"chunk {chunk}: an ongoing game with an empty mask"
        phases |= {A.PHASES[p] for p in np.unique(np.asarray(phase))}
        done = np.asarray(done)
        finished += int(done.sum())
        ends |= {R.END_REASONS[r] for r in np.unique(np.asarray(reason)[done])}
        for g in range(0, BATCH, 32):  # the full host-side check on a sample
            rules.validate(jax.tree.map(lambda x, g=g: x[g], state))
    assert BATCH * STEPS >= 100_000
    # Random play reaches every decision phase the starter decks have (no Digimon card of theirs
    # has <Blast Digivolve> or DNA requirements: no counter timing, no SelectMaterial).
    reached = {"breeding", "main", "block_timing", "select_target", "select_source"}
    assert reached <= phases, f"never reached: {sorted(reached - phases)}"
    assert finished > 100 and {"security_attack"} <= ends, (finished, ends)
