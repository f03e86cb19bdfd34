"""Cross-game conventions owned once by ``tcgjax.core.env.Env`` (shown on the duel env)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tcgjax
from tcgjax.core import errors
from tcgjax.core.actions import ActionLayout
from tcgjax.core.env import Env, StepResult
from tcgjax.core.observation import ObservationLayout
from tcgjax.games.duel.rules import ACTIONS, END_REASONS
from tcgjax.games.duel.scenario import build_state
from tcgjax.testing import assert_states_equal

KEY = jax.random.PRNGKey(0)
END_TURN = ACTIONS.encode("end_turn")
PLAY0 = ACTIONS.encode("play", 0)


@pytest.fixture(scope="module")
def lose_env():
    return tcgjax.make("duel", illegal_action="lose")


def test_metadata(duel_env):
    env = duel_env
    assert (env.id, env.num_players, env.num_actions) == ("duel", 2, 10)
    assert env.observation_shape == (56,)
    assert env.init(KEY).observation.shape == env.observation_shape
    assert env.action_name(END_TURN) == "end_turn" and env.action_name(PLAY0) == "play[0]"


@pytest.mark.parametrize("bad", [-1, 10, 2**20])
def test_reject_out_of_range_action_changes_nothing(duel_env, bad):
    s = duel_env.init(KEY)
    out = jax.jit(duel_env.step)(s, bad, KEY)
    assert int(out.error) == errors.ACTION_OUT_OF_RANGE
    assert_states_equal(out, s.replace(error=out.error), "rejected")
    with pytest.raises(tcgjax.IllegalActionError, match="action_out_of_range"):
        tcgjax.checked_step(duel_env, s, bad, KEY)


def test_reject_illegal_action_names_the_rule(duel_env):
    s = build_state(duel_env, [{"hand": ["dragon"], "mana": 1}, {}])
    out = jax.jit(duel_env.step)(s, PLAY0, KEY)
    assert duel_env.error_codes.name(int(out.error)) == "not_enough_mana"
    assert_states_equal(out, s.replace(error=out.error), "rejected")
    with pytest.raises(tcgjax.IllegalActionError) as info:
        tcgjax.checked_step(duel_env, s, PLAY0, KEY)
    assert "not_enough_mana" in str(info.value) and "player1" in str(info.value)
    assert "action 0 (play Dragon (hand 0)) by player1" in str(info.value)  # named in the state
    assert isinstance(info.value, tcgjax.TcgjaxError)


def test_error_is_cleared_by_the_next_legal_step(duel_env):
    s = build_state(duel_env, [{"hand": ["dragon"], "mana": 1}, {}])
    step = jax.jit(duel_env.step)
    s = step(s, PLAY0, KEY)
    assert int(s.error) != 0
    s = step(s, END_TURN, KEY)
    assert int(s.error) == 0 and int(s.step_count) == 1


def test_lose_policy_ends_the_game_against_the_actor(lose_env):
    s = build_state(lose_env, [{"hand": ["dragon"], "mana": 1}, {}])
    out = jax.jit(lose_env.step)(s, PLAY0, KEY)
    assert bool(out.terminated) and not bool(out.truncated)
    np.testing.assert_array_equal(out.rewards, [-1.0, 1.0])
    assert lose_env.error_codes.name(int(out.error)) == "not_enough_mana"
    assert bool(out.legal_action_mask.all())
    # The rules state records the forfeit (the outcome agrees with terminated); nothing else moves.
    assert (int(out.game.winner), END_REASONS[int(out.game.end_reason)]) == (1, "illegal_action")
    assert_states_equal(out.game.board, s.game.board, "board untouched")
    lose_env.validate(out)
    back = tcgjax.from_json(lose_env, tcgjax.to_json(lose_env, out))
    assert_states_equal(back, out, "a forfeited game round-trips")
    # Player 2 acting illegally loses too.
    s2 = build_state(lose_env, [{}, {"hand": ["dragon"], "mana": 1}], active=1)
    out2 = jax.jit(lose_env.step)(s2, 42, KEY)
    np.testing.assert_array_equal(out2.rewards, [1.0, -1.0])
    assert int(out2.error) == errors.ACTION_OUT_OF_RANGE
    assert int(out2.game.winner) == 0 and bool(out2.terminated)
    lose_env.validate(out2)


def test_terminal_state_is_absorbing(duel_env):
    s = build_state(duel_env, [{"board": ["wolf"]}, {"life": 1}])
    step = jax.jit(duel_env.step)
    end = step(s, ACTIONS.encode("attack", 0), KEY)
    assert bool(end.terminated)
    for action in range(duel_env.num_actions):
        again = step(end, action, KEY)
        assert_states_equal(again, end.replace(rewards=jnp.zeros(2)), f"absorbing {action}")
    with pytest.raises(tcgjax.IllegalActionError, match=r"game is over \(terminated\)"):
        tcgjax.checked_step(duel_env, end, END_TURN, KEY)


def test_truncation_at_max_steps():
    env = tcgjax.make("duel", max_steps=3)
    step = jax.jit(env.step)
    s = env.init(KEY)
    for i in range(3):
        assert not bool(s.truncated)
        s = step(s, END_TURN, KEY)
        assert int(s.step_count) == i + 1
    assert bool(s.truncated) and not bool(s.terminated)
    assert bool(s.legal_action_mask.all())
    np.testing.assert_array_equal(s.rewards, [0.0, 0.0])
    assert_states_equal(step(s, END_TURN, KEY), s, "truncated is absorbing")
    with pytest.raises(tcgjax.IllegalActionError, match=r"game is over \(truncated\)"):
        tcgjax.checked_step(env, s, END_TURN, KEY)


def test_truncation_at_the_games_own_limit():
    """A game's ``_is_truncated`` (e.g. Digimon's ``max_turns``) truncates like ``max_steps``,
    and ``validate`` holds the flag to it both ways."""

    class TurnLimitedDuel(type(tcgjax.make("duel"))):
        def _is_truncated(self, game):
            return game.board.turn_number > 2

    env = TurnLimitedDuel()
    step = jax.jit(env.step)
    s = env.init(KEY)
    turns = [int(s.game.board.turn_number)]
    while not bool(s.truncated):
        s = step(s, END_TURN, KEY)
        turns.append(int(s.game.board.turn_number))
        assert len(turns) < 10
    assert turns[-1] == 3 and turns[-2] == 2 and not bool(s.terminated)
    assert int(s.step_count) < env.max_steps and bool(s.legal_action_mask.all())
    env.validate(s)
    assert_states_equal(step(s, END_TURN, KEY), s, "truncated is absorbing")
    with pytest.raises(errors.InvalidStateError, match="env.truncated.*the game's own limit"):
        env.validate(s.replace(truncated=jnp.bool_(False)))


def test_mask_is_never_empty_and_matches_action_error(duel_env):
    s = build_state(duel_env, [{"hand": [], "board": []}, {}])
    np.testing.assert_array_equal(np.flatnonzero(s.legal_action_mask), [END_TURN])
    codes = jax.vmap(duel_env.action_error, in_axes=(None, 0))(s, jnp.arange(10))
    np.testing.assert_array_equal(np.asarray(codes) == 0, np.asarray(s.legal_action_mask))


def test_step_works_under_vmap_with_mixed_outcomes(duel_env):
    """One batch mixing a legal step, a rejected action and a terminal state."""
    env = duel_env
    legal = build_state(env, [{"hand": ["goblin"], "mana": 1}, {}])
    illegal = build_state(env, [{"hand": ["dragon"], "mana": 1}, {}])
    terminal = jax.jit(env.step)(
        build_state(env, [{"board": ["wolf"]}, {"life": 1}]), ACTIONS.encode("attack", 0), KEY
    )
    batch = jax.tree.map(lambda *x: jnp.stack(x), legal, illegal, terminal)
    out = jax.jit(jax.vmap(env.step))(
        batch, jnp.array([PLAY0, PLAY0, END_TURN]), jax.random.split(KEY, 3)
    )
    for i, single in enumerate([legal, illegal, terminal]):
        expected = jax.jit(env.step)(
            single, [PLAY0, PLAY0, END_TURN][i], jax.random.split(KEY, 3)[i]
        )
        assert_states_equal(jax.tree.map(lambda x, i=i: x[i], out), expected, f"game {i}")
    assert list(np.asarray(out.error) != 0) == [False, True, False]


def test_lose_policy_records_the_forfeit_in_the_deployment_game():
    """The deployment win-rate metric reads ``outcome``: a forfeit must show there."""
    env = tcgjax.make("deployment", illegal_action="lose")
    s = jax.jit(env.init)(KEY)
    illegal = int(np.flatnonzero(~np.asarray(s.legal_action_mask))[0])
    out = jax.jit(env.step)(s, illegal, KEY)
    assert bool(out.terminated)
    view = tcgjax.to_json(env, out)
    assert '"outcome": "player2_won"' in view and '"endReason": "illegal_action"' in view
    env.validate(out)


@pytest.mark.parametrize("player", [-1, 2, 7, np.int64(2), True, 0.0, "1", None, np.array([0])])
def test_observe_refuses_a_concrete_player_outside_the_range(duel_env, player):
    s = duel_env.init(KEY)
    with pytest.raises(tcgjax.TcgjaxError, match="player"):
        duel_env.observe(s, player)


def test_observe_accepts_every_player_and_traces_under_jit(duel_env):
    s = duel_env.init(KEY)
    for player in (0, 1, np.int32(1), jnp.int32(0)):
        assert duel_env.observe(s, player).shape == duel_env.observation_shape
    # Traced players cannot be checked (documented); both seats still give their own views.
    views = jax.jit(jax.vmap(duel_env.observe, in_axes=(None, 0)))(s, jnp.arange(2))
    np.testing.assert_array_equal(views[0], duel_env.observe(s, 0))
    np.testing.assert_array_equal(views[1], duel_env.observe(s, 1))


@pytest.mark.parametrize("max_steps", [2**31, 2**40, 0, -5, 3.0, True])
def test_max_steps_must_fit_int32(max_steps):
    with pytest.raises(tcgjax.ConfigError, match="max_steps"):
        tcgjax.make("duel", max_steps=max_steps)
    assert tcgjax.make("duel", max_steps=2**31 - 1).max_steps == 2**31 - 1


class _RoundTable(Env):
    """A three-seat toy game for the core's n-player conventions: each ``pass`` hands the turn to
    the next seat; ``claim`` is legal for seat 0 only; nothing else ever ends it."""

    id = "round-table"
    version = "1"
    num_players = 3
    action_layout = ActionLayout([("pass", 1), ("claim", 1)])
    observation_layout = ObservationLayout([("turn", (3,), "one-hot: the seat to act")])
    default_max_steps = 50

    def _init_game(self, key):
        del key
        return {"turn": jnp.int32(0), "loser": jnp.int32(-1)}

    def _apply_action(self, game, action, key):
        del action, key
        return StepResult({**game, "turn": (game["turn"] + 1) % 3}, jnp.zeros(3, jnp.float32))

    def _legal_action_mask(self, game):
        return jnp.stack([jnp.bool_(True), game["turn"] == 0])

    def _observe(self, game, player):
        del player
        return jax.nn.one_hot(game["turn"], 3)

    def _current_player(self, game):
        return game["turn"]

    def _is_terminal(self, game):
        return game["loser"] >= 0

    def _forfeit(self, game, loser):
        return {**game, "loser": loser}


def test_a_forfeit_among_three_players_shares_the_win():
    """``illegal_action="lose"`` with three seats: the forfeiting seat gets -1 and the two others
    share +1 (1/2 each), so the rewards still sum to zero; the game records who forfeited."""
    env = _RoundTable(illegal_action="lose")
    step = jax.jit(env.step)
    s = step(env.init(KEY), jnp.int32(0), KEY)  # seat 0 passes: seat 1 to act
    assert int(s.current_player) == 1 and not bool(s.terminated)
    s = step(s, jnp.int32(1), KEY)  # seat 1 claims: illegal, it forfeits
    assert bool(s.terminated) and int(s.game["loser"]) == 1
    np.testing.assert_array_equal(s.rewards, [0.5, -1.0, 0.5])
    assert int(s.error) == errors.ACTION_NOT_LEGAL


def test_options_are_keyword_only():
    """``Env.__init__`` takes its options by name only: ``SomeEnv("lose")`` must not silently mean
    ``illegal_action="lose"`` (a game without an ``__init__`` of its own inherits the core's)."""
    with pytest.raises(TypeError):
        _RoundTable("lose")
    assert _RoundTable(illegal_action="lose").illegal_action == "lose"


def test_validate_names_max_steps_when_truncation_is_missing_there():
    """At exactly ``max_steps`` an unfinished game must be truncated; the error says why."""
    env = tcgjax.make("duel", max_steps=2)
    step = jax.jit(env.step)
    s = step(step(env.init(KEY), END_TURN, KEY), END_TURN, KEY)
    assert int(s.step_count) == 2 and bool(s.truncated)
    env.validate(s)
    with pytest.raises(errors.InvalidStateError, match=r"env.truncated.*step 2 .*past max_steps"):
        env.validate(s.replace(truncated=jnp.bool_(False)))


def test_a_game_without_decks_reports_matchup_zero_under_jit_and_vmap(duel_env):
    # Per-matchup evaluation splits games by env.matchup: a game without decks is all matchup 0.
    states = jax.vmap(duel_env.init)(jax.random.split(jax.random.key(3), 4))
    matchups = jax.jit(jax.vmap(duel_env.matchup))(states)
    assert matchups.dtype == jnp.int32
    assert matchups.tolist() == [0, 0, 0, 0]
    one = jax.tree.map(lambda x: x[0], states)
    assert int(duel_env.matchup(one)) == 0
