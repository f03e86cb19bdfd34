"""The Pokémon env (registered as ``pokemon``): the conformance harness with the shipped decks,
the observation layout of both encodings (P3, P5), what a player may not see, names, options."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from pokemon_testlib import ROLLOUT_GAMES, ROLLOUT_STEPS, random_rollout, shared_rules, shipped_env

import tcgjax
from tcgjax.core.errors import ConfigError
from tcgjax.games.pokemon import encoding as E
from tcgjax.games.pokemon import observation as O
from tcgjax.games.pokemon import rules as R
from tcgjax.games.pokemon.env import PokemonEnv
from tcgjax.games.pokemon.scenario import build_state
from tcgjax.testing import api_test, round_trip_states


@pytest.fixture(scope="module")
def env():
    return shipped_env()


def test_metadata(env):
    n = 90  # the shipped registry: 89 cards and the padding 0
    assert env.num_actions == 14 * n + 37
    assert env.observation_shape == (12 * E.V21_DIMS + 5 * n + 6 + 12 + 84 + 15 + 8 + 52,)
    assert tcgjax.make("pokemon", encoding="v1").observation_shape == (
        12 * E.V1_DIMS + 5 * n + 177,
    )
    assert env.options["decks"] == ["tapu_koko", "melmetal_dte"] and env.options["max_turns"] == 100
    assert "pokemon" in tcgjax.available_envs()
    ids = env.rules.cards
    assert (
        env.action_name(env.action_layout.encode("play", ids.index("sv1-180"))) == "play[sv1-180]"
    )
    evolve = env.action_layout.encode("evolve", ids.index("sv3-68") * 6 + 2)
    assert env.action_name(evolve) == "evolve[sv3-68->bench2]"
    assert env.action_name(env.action_layout.encode("select_slot", 7)) == (
        "select_slot[opponent bench1]"
    )
    assert env.action_name(env.action_layout.encode("retreat", 0)) == "retreat[->bench1]"


def test_api_test_with_the_shipped_decks(env):
    report = api_test(env, num_steps=60, batch_size=8, batch_steps=30, json_every=15)
    assert report.single_steps > 0 and report.json_round_trips >= 4
    assert report.renders_checked == 3 * report.json_round_trips  # every viewer
    assert report.states_validated > 60 and report.illegal_actions_checked > 100


def test_turn_limit_truncates(env):
    limited = PokemonEnv(max_turns=4)
    game = build_state(
        limited.rules, [{"slots": [["sv4-68"]]}, {"slots": [["sv3-152"]]}], turn=4, active=1,
        first_player=0,
    )  # fmt: skip
    game, _ = limited.rules.apply(game, jnp.int32(limited.action_layout.encode("end_turn")),
                                  jax.random.PRNGKey(0))  # fmt: skip
    assert bool(limited._is_truncated(game)) and not bool(limited._is_terminal(game))
    assert R.END_REASONS[int(game.end_reason)] == "turn_limit"


def _observer(encoding):
    return O.Observer(shared_rules(), encoding)


def test_board_slice_is_the_encoding_of_the_observers_slots_first():
    rules = shared_rules()
    s = build_state(
        rules,
        [{"slots": [["sv3-67", "sve-4"]], "damage": {0: 10}},
         {"slots": [["sv3-152"], ["sv2-151", "swsh9-151"]]}],
    )  # fmt: skip
    for encoding, width in (("v2.1", E.V21_DIMS), ("v1", E.V1_DIMS)):
        observer = _observer(encoding)
        for player in (0, 1):
            obs = observer.observe(s, jnp.int32(player))
            board = np.asarray(observer.layout.view(obs, "board")).reshape(12, width)
            mine, theirs = board[:6], board[6:]
            own = rules.cards.index("sv3-67" if player == 0 else "sv3-152")
            if encoding == "v1":
                bench = -1 if player == 0 else rules.cards.index("sv2-151")  # -1 = empty
                assert mine[0, 0] == own and mine[1, 0] == bench
                assert mine[0, 1] == (30 if player == 0 else 70)  # remaining HP
            else:
                occupied = E.feature_slices()["occupied"]
                benched = [0, 1][player]  # only player 2 has a Benched Pokémon
                assert mine[0, occupied] == 1 and mine[1, occupied] == benched
                assert theirs[0, occupied] == 1 and theirs[1, occupied] == 1 - benched
                assert (board[2:6] == 0).all() and (board[8:] == 0).all()


def test_the_opponents_hand_and_face_down_pokemon_are_not_seen():
    rules = shared_rules()
    observer = _observer("v2.1")
    a = build_state(rules, [{"hand": ["sv3-68"], "slots": [["sv3-67"]]},
                            {"hand": ["sv1-180"], "slots": [["sv3-152"]]}])  # fmt: skip
    b = build_state(rules, [{"hand": ["sv3-68"], "slots": [["sv3-67"]]},
                            {"hand": ["sv1-198"], "slots": [["sv3-152"]]}])  # fmt: skip
    obs_a, obs_b = (np.asarray(observer.observe(x, jnp.int32(0))) for x in (a, b))
    np.testing.assert_array_equal(obs_a, obs_b)  # only the opponent's hand differs
    assert not np.array_equal(
        np.asarray(observer.observe(a, jnp.int32(1))), np.asarray(observer.observe(b, jnp.int32(1)))
    )
    # Setup: the first player's face-down Active is an empty slot to the second player.
    s = jax.jit(rules.init)(jax.random.PRNGKey(3))
    first = int(s.first_player)
    basic = np.asarray(rules.is_pokemon & rules.is_basic)
    basics = [c for i, c in enumerate(rules.cards.ids) if basic[i]]
    hand = [rules.cards.ids[int(d)] for d, z in zip(np.asarray(s.board.definition),
            np.asarray(s.board.zone), strict=True) if z == int(R.zone_of("hand", first))]  # fmt: skip
    card = next(c for c in hand if c in basics)
    s, _ = rules.apply(s, jnp.int32(rules.actions.encode("play", rules.cards.index(card))),
                       jax.random.PRNGKey(0))  # fmt: skip
    occupied = E.feature_slices()["occupied"]
    seen_by_other = observer.layout.view(observer.observe(s, jnp.int32(1 - first)), "board")
    seen_by_owner = observer.layout.view(observer.observe(s, jnp.int32(first)), "board")
    assert np.asarray(seen_by_other).reshape(12, -1)[6, occupied].tolist() == [0.0]
    assert np.asarray(seen_by_owner).reshape(12, -1)[0, occupied].tolist() == [1.0]


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"decks": ("tapu_koko",)}, "two decks"),
        ({"decks": "tapu_koko"}, "two decks"),
        ({"decks": ("tapu_koko", "pikachu")}, "pikachu"),
        ({"cards": 3}, "cards"),
        ({"encoding": "v2"}, "encoding='v2'"),
        ({"max_turns": 0}, "max_turns=0"),
        ({"max_turns": True}, "max_turns=True"),
    ],
)
def test_option_errors(options, needle):
    with pytest.raises(ConfigError, match=needle):
        PokemonEnv(**options)


def test_encode_board_reproduces_a_hand_computed_slot(env):
    """Melmetal ex (on Meltan) with 2 Basic Metal Energy and a Double Turbo Energy, 40 damage, as
    player 2's Active, seen by player 2 (slot 0) and by player 1 (slot 6)."""
    from tcgjax.games.pokemon.env import encode_board

    game = build_state(
        env.rules,
        [
            {"slots": [["sv4-68"]]},
            {"slots": [["sv3-152", "svp-104", "sve-8", "sve-8", "swsh9-151"]], "damage": {0: 40}},
        ],
    )
    expected = {
        "occupied": [1],
        "evoStageOH": [0, 1, 0],
        # 30 lines by the name of their Basic (P6): Bidoof, Bronzor, Bruxish, Buizel, Charmander,
        # Chien-Pao ex, Cresselia, Delibird, Drifloon, Frigibax, Lumineon V, Marill, Meltan, ...:
        # Meltan's is 13 of 30.
        "evoFamilyId": [13 / 30],
        "pokemonTypeOH": [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],  # Metal
        "HP": [260 / 300],
        "MaxHP": [300 / 300],
        "weaknessTypeOH": [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0],  # Fire
        "resistanceTypeOH": [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],  # Grass
        "resistanceValue": [-1.0],
        "retreatCost": [1.0],
        "atkExists": [1, 1, 0, 0],
        "atkDamage": [0, 90 / 200, 0, 0],
        "atkTotalCost": [1 / 5, 4 / 5, 0, 0],
        "effectiveEnergy": [0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 2],  # 2 Metal, 2 Colorless (DTE)
        "specialEnergyCount": [1],
        "specialProvidesExtra": [1],
        "specialDamageMod": [-20 / 200],
    }
    for player, row in ((1, 0), (0, 6)):
        board = np.asarray(jax.jit(lambda g, p: encode_board(env, g, p))(game, player))
        assert board.shape == (12, 68)
        for name, where in E.feature_slices().items():
            np.testing.assert_allclose(board[row, where], expected[name], rtol=1e-6, err_msg=name)
    v1 = np.asarray(encode_board(env, game, 1, "v1"))
    melmetal = env.rules.cards.index("svp-104")
    energy = [0] * 11
    energy[7], energy[10] = 2, 1  # Energy cards: 2 Metal, the DTE once under Colorless
    assert v1.shape == (12, 14)
    np.testing.assert_array_equal(v1[0], [melmetal, 260, 300, *energy])
    assert v1[1].tolist() == [-1.0] + [0.0] * 13  # an empty slot
    with pytest.raises(ConfigError, match="version"):
        encode_board(env, game, 0, "v2")


def test_decode_action_names_every_id(env):
    from tcgjax.games.pokemon.env import decode_action

    ids = env.rules.cards
    assert decode_action(env, env.action_layout.encode("evolve", ids.index("sv3-68") * 6 + 2)) == (
        "evolve",
        {"card": "sv3-68", "slot": "bench2"},
    )
    assert decode_action(env, env.action_layout.encode("select_slot", 7)) == (
        "select_slot",
        {"side": "opponent", "slot": "bench1"},
    )
    assert decode_action(env, env.action_layout.encode("attack", 1)) == ("attack", {"index": 1})
    names = {env.action_name(a) for a in range(env.num_actions)}
    assert len(names) == env.num_actions  # every id has its own readable name
    with pytest.raises(ConfigError):
        decode_action(env, env.num_actions)


def test_shipped_decks_keep_every_card_over_100k_random_steps(env):
    """6 x 64 games x 300 steps of random legal play with auto-reset (115,200 transitions): no
    step sets an error code, every game's cards keep their definitions and dense zone positions,
    and games finish. The first 64 x 300 are also ``validate``'s random-play sweep (issue #33
    point 1): every state validates and round-trips through JSON exactly."""
    rollout = random_rollout()
    finished = 0
    for k in range(6):
        states, ok = jax.device_get(rollout(jax.random.PRNGKey(100 + k)))
        if k == 0:
            checked = round_trip_states(env, states, "state (step, game)")
            assert checked == ROLLOUT_GAMES * ROLLOUT_STEPS >= 64 * 300
            phases = {R.PHASES[p] for p in np.unique(states.game.board.phase)}
            assert {"main", "select", "promote", "game_over"} <= phases, phases
        ok = np.asarray(ok)
        assert ok.all(), f"rollout {k}: first failing step {int(np.argmin(ok.all(axis=1)))}"
        definitions = np.asarray(states.game.board.definition)
        assert (definitions == definitions[0, 0]).all(), "a card changed its definition"
        finished += int(np.asarray(states.terminated | states.truncated).sum())
        last = jax.tree.map(lambda x: x[-1], states)
        for g in range(0, ROLLOUT_GAMES, 32):
            env.validate(jax.tree.map(lambda x, g=g: x[g], last))
    assert 6 * ROLLOUT_GAMES * ROLLOUT_STEPS >= 100_000
    assert finished >= 300, finished  # games do end (about 130 steps each)
