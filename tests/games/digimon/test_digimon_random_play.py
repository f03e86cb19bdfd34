"""Random play with the ST-1 and ST-2 starter decks for 100,000+ steps: card conservation, zone bounds,
memory range, phase and selection-record consistency after every step (checked on device for
every game), the full host-side ``validate`` on a sample, never an empty mask, and a coverage
count: the phases the games reach and every effect row of every card of the two decks resolving
(triggered rows) or in force (continuous rows) at least once."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import struct
from suite_xla import compiled_for_running

from tcgjax.core.tree import when_some
from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon import rules as R
from tcgjax.games.digimon.cards import load_cards
from tcgjax.games.digimon.decks import load_deck
from tcgjax.wrappers import random_legal_action

BATCH, STEPS = 128, 800  # 102,400 steps
PHASE = {name: i for i, name in enumerate(A.PHASES)}


@struct.dataclass
class CoverageState(R.DigimonState):
    """The rules state plus a record of the effect rows resolved in this game: bool[D, R]."""

    resolved: jax.Array


class CoverageRules(R.DigimonRules):
    """The rules, counting which (card definition, row) pairs the interpreter resolves."""

    def init(self, key):
        state = super().init(key)
        shape = self.cards["effects.where"].shape
        fields = {f: getattr(state, f) for f in R.DigimonState.__dataclass_fields__}
        return CoverageState(**fields, resolved=jnp.zeros(shape, jnp.bool_))

    def _resolve_one(self, state):
        card = jnp.maximum(state.queue.card[0].astype(jnp.int32), 0)
        definition = state.board.definition[card]
        row = jnp.maximum(state.queue.row[0].astype(jnp.int32), 0)
        out = super()._resolve_one(state)
        return out.replace(resolved=out.resolved.at[definition, row].set(True))

    def _battle(self, state, checks):
        # Continuous rows in force during a battle (battling_no_source_digimon) count as run.
        live = self.permanents(state, self._battling(state)).live_rows  # [C, R]
        out = super()._battle(state, checks)
        definition = state.board.definition
        return out.replace(resolved=out.resolved.at[definition].max(live))


@pytest.fixture(scope="module")
def rules():
    registry = load_cards()
    decks = [load_deck(d, registry) for d in ("st1", "st2")]
    return CoverageRules(registry, [(d.eggs, d.main) for d in decks])


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
        record_ok = ((state.selection.card >= 0) == paused) & (
            (state.attack_stage < 0) == (state.attacker < 0)
        )
        return jnp.stack([conserved, in_bounds, memory, phase_ok, record_ok])

    return check


def test_random_play_keeps_every_invariant_for_100k_steps(rules):
    check = device_invariants(rules)
    init = jax.vmap(rules.init)

    def restart_if_over(state, key):
        return when_some(state.winner >= 0, lambda state, key: rules.init(key), state, key)

    @jax.jit
    def run(state, key):
        def body(carry, key):
            state = carry
            k_act, k_reset, k_apply = jax.random.split(key, 3)
            mask = jax.vmap(rules.legal_action_mask)(state)
            ongoing = state.winner < 0
            stuck = ongoing & ~jnp.any(mask, axis=-1)
            action = random_legal_action(k_act, mask)
            stepped, _ = jax.vmap(rules.apply)(state, action, jax.random.split(k_apply, BATCH))
            ok = jax.vmap(check)(stepped)
            # Continuous rows in force now, by card definition (triggered ones: `resolved`).
            live = jax.vmap(lambda s: rules.permanents(s).live_rows)(stepped)  # [B, C, R]
            shape = rules.cards["effects.where"].shape
            live = jnp.zeros(shape, jnp.bool_).at[stepped.board.definition].max(live)
            resolved = jnp.any(stepped.resolved, axis=0)
            done = stepped.winner >= 0
            # Only the finished games are initialised again (``when_some``'s batching rule), not
            # all 128 at every step: a new game costs about a step.
            nxt = jax.vmap(restart_if_over)(stepped, jax.random.split(k_reset, BATCH))
            return nxt, (ok, stuck, stepped.board.phase, done, stepped.end_reason, live | resolved)

        return jax.lax.scan(body, state, jax.random.split(key, 100))

    state = jax.jit(init)(jax.random.split(jax.random.PRNGKey(0), BATCH))
    key = jax.random.PRNGKey(1)
    run = compiled_for_running(run, state, key)
    phases, ends, finished = set(), set(), 0
    covered = np.zeros(rules.cards["effects.where"].shape, bool)
    for chunk in range(STEPS // 100):
        key, k = jax.random.split(key)
        state, (ok, stuck, phase, done, reason, seen) = run(state, k)
        covered |= np.asarray(seen).any(axis=0)
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
    # Random play reaches every decision phase the starter decks have. No card of theirs has
    # <Blast Digivolve>, DNA requirements or an op of SelectHand, SelectReveal, SelectTrash,
    # SelectSecurity or SelectEffectChoice: those phases are played in the rule tests with
    # test-only cards (test_digimon_keywords.py, test_digimon_selections.py).
    reached = {"breeding", "main", "block_timing", "select_target", "select_source"}
    assert reached <= phases, f"never reached: {sorted(reached - phases)}"
    assert finished > 100 and {"security_attack"} <= ends, (finished, ends)
    # Coverage: every effect row of every card of the two decks resolved or was in force at least
    # once (the ST-3 cards' rows are played in test_digimon_st3_effects.py and in the all-pairs
    # sweep, benchmarks/deck_pairs.py).
    num_rows = np.asarray(rules.cards.numpy["effects.num_rows"])
    played = sorted({rules.cards.index(n) for eggs, main in rules.decks for n in (*eggs, *main)})
    missing = [
        f"{rules.cards.ids[d]} row {r}"
        for d in played
        for r in range(int(num_rows[d]))
        if not covered[d, r]
    ]
    assert int(num_rows[played].sum()) == 34 and not missing, f"never ran in random play: {missing}"
