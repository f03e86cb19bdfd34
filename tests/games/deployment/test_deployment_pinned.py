"""Behaviours that rule mutations showed unguarded, each pinned by a scripted situation.

* the observation's ``legal_placement_exists`` bit (6.5) is 1 while a placement is legal, 0 after;
* the ``active_deployer`` feature (6.1) is cleared once deployment is over;
* the ``turn`` feature is the round divided by the scenario's ``max_turns`` (not a constant);
* only the player whose turn starts gets their moves back (the opponent's units keep 0);
* the round counter advances when ``first_player`` starts a turn, also when that is player 2;
* ``deployed`` (and so ``alive``) holds exactly for the units placed so far;
* with unequal armies: an empty unit slot must stay untouched, and the first deployer must have
  placed every unit of theirs (not as many as the other player has) before the second places one.

(``from_json``'s wall and pool checks, each alone, are pinned in ``test_deployment_validate``.)
"""

import json

import numpy as np
import pytest
from test_deployment_spec import end_index, init, make_env, move, scenario, step, unit, view

import tcgjax
from tcgjax.games.deployment import encode_deploy


def obs(env, state, player, name):
    return np.asarray(env.observation_layout.view(env.observe(state, player), name))


def skirmish_scenario(*, first_player="player1", max_turns=3):
    """Two units a side at fixed positions on a 6x3 board, out of range of each other (range 1)."""
    return scenario(
        cols=6,
        rows=3,
        units=[
            unit("a1", "player1", move=2),
            unit("a2", "player1", move=1),
            unit("b1", "player2", move=2),
            unit("b2", "player2", move=1),
        ],
        pools={"player1": [(0, 0), (0, 2)], "player2": [(5, 0), (5, 2)]},
        unit_slots=2,
        hex_slots=2,
        fixed={"a1": (0, 0), "a2": (0, 2), "b1": (5, 0), "b2": (5, 2)},
        first_player=first_player,
        max_turns=max_turns,
    )


def test_legal_placement_bit_and_active_deployer_feature_through_deployment():
    env = tcgjax.make("deployment")  # small: 3 units a side, player1 deploys first
    s = init(env)
    for viewer in (0, 1):
        assert obs(env, s, viewer, "legal_placement_exists").tolist() == [1.0]
    np.testing.assert_array_equal(obs(env, s, 0, "active_deployer"), [1.0, 0.0])  # me
    np.testing.assert_array_equal(obs(env, s, 1, "active_deployer"), [0.0, 1.0])  # opponent
    placements = [
        ("blue_infantry", 0, 0),
        ("blue_sniper", 0, 1),
        ("blue_tank", 0, 2),
        ("red_infantry", 6, 0),
        ("red_sniper", 6, 1),
        ("red_tank", 6, 2),
    ]
    for uid, col, row in placements[:-1]:
        s = step(env, s, encode_deploy(env, s, uid, col, row))
        assert obs(env, s, 0, "legal_placement_exists").tolist() == [1.0]
    np.testing.assert_array_equal(obs(env, s, 1, "active_deployer"), [1.0, 0.0])  # player2 now
    uid, col, row = placements[-1]
    s = step(env, s, encode_deploy(env, s, uid, col, row))
    assert view(env, s)["phase"] == "movement"
    for viewer in (0, 1):
        assert obs(env, s, viewer, "legal_placement_exists").tolist() == [0.0]
        np.testing.assert_array_equal(obs(env, s, viewer, "active_deployer"), [0.0, 0.0])


@pytest.mark.parametrize("max_turns", [3, 5])
def test_turn_feature_is_the_round_over_max_turns(max_turns):
    env = make_env(skirmish_scenario(max_turns=max_turns))
    s = init(env)
    assert obs(env, s, 0, "turn").tolist() == pytest.approx([1 / max_turns])
    for round_ in range(2, max_turns + 1):
        for _ in range(4):  # p1 movement, p1 shooting, p2 movement, p2 shooting
            s = step(env, s, end_index(env))
        assert view(env, s)["turnState"]["turnNumber"] == round_
        for viewer in (0, 1):
            assert obs(env, s, viewer, "turn").tolist() == pytest.approx([round_ / max_turns])


def test_only_the_player_whose_turn_starts_gets_moves_back():
    env = make_env(skirmish_scenario())
    s = init(env)
    moves = lambda s: {u: view(env, s)["units"][u]["movesLeft"] for u in ("a1", "a2", "b1", "b2")}  # noqa: E731
    assert moves(s) == {"a1": 2, "a2": 1, "b1": 0, "b2": 0}
    s = step(env, s, move(env, s, "a1", "S"))  # spend one of a1's moves
    s = step(env, s, end_index(env))  # to shooting
    assert moves(s) == {"a1": 1, "a2": 1, "b1": 0, "b2": 0}
    s = step(env, s, end_index(env))  # player2's turn starts
    assert moves(s) == {"a1": 0, "a2": 0, "b1": 2, "b2": 1}
    # The viewer's own and the opponent's moves features agree with the state.
    opponent_units = obs(env, s, 0, "units")[1]  # player1 viewing: row 1 is player2
    np.testing.assert_allclose(opponent_units[:, 5], [1.0, 1.0])  # moves_left / move
    np.testing.assert_allclose(obs(env, s, 0, "units")[0][:, 5], [0.0, 0.0])
    s = step(env, s, end_index(env))
    s = step(env, s, end_index(env))  # player1's turn again
    assert moves(s) == {"a1": 2, "a2": 1, "b1": 0, "b2": 0}
    env.validate(s)


@pytest.mark.parametrize("first_player", ["player1", "player2"])
def test_rounds_follow_first_player_to_the_turn_limit(first_player):
    max_turns = 3
    env = make_env(skirmish_scenario(first_player=first_player, max_turns=max_turns))
    s = init(env)
    first = int(first_player[-1]) - 1
    assert int(s.current_player) == first
    turns, steps = [], 0
    while not bool(s.terminated):
        s = step(env, s, end_index(env))
        steps += 1
        turns.append(view(env, s)["turnState"]["turnNumber"])
        assert steps <= 4 * max_turns
    # 4 end_phase actions a round; the round advances exactly when first_player starts again.
    assert steps == 4 * max_turns
    assert turns == [1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3]
    v = view(env, s)
    assert (v["outcome"], v["endReason"]) == ("draw", "turn_limit")
    env.validate(s)


def test_deployed_and_alive_hold_exactly_for_the_placed_units():
    env = tcgjax.make("deployment")  # small: 3 units a side, player1 deploys first
    s = init(env)
    exists = np.asarray(env.rules.t["unit_exists"])
    assert exists.sum() == 6
    assert not np.asarray(env.rules.deployed(s.game)).any()
    assert not np.asarray(env.rules.alive(s.game)).any()
    s = step(env, s, encode_deploy(env, s, "blue_sniper", 0, 1))
    deployed = np.asarray(env.rules.deployed(s.game))
    assert deployed.sum() == 1 and np.asarray(env.rules.alive(s.game)).sum() == 1
    assert deployed.tolist() == np.asarray(s.game.col >= 0).tolist()


def uneven_env():
    """Player 1 has two units, player 2 one: player 2's second unit slot is empty padding."""
    return make_env(
        scenario(
            cols=4,
            rows=2,
            units=[unit("a1", "player1"), unit("a2", "player1"), unit("b1", "player2")],
            pools={"player1": [(0, 0), (0, 1)], "player2": [(3, 0), (3, 1)]},
            unit_slots=2,
            hex_slots=2,
        )
    )


def test_an_empty_unit_slot_must_stay_untouched():
    env = uneven_env()
    s = init(env)
    env.validate(s)
    padding = int(np.flatnonzero(~np.asarray(env.rules.t["unit_exists"]))[0])
    for field, value in (("has_shot", True), ("deploy_order", 0), ("damage_dealt", 1)):
        column = getattr(s.game, field)
        broken = s.replace(game=s.game.replace(**{field: column.at[padding].set(value)}))
        with pytest.raises(tcgjax.TcgjaxError, match=rf"units\[{padding}\]"):
            env.validate(broken)
    moved = s.game.replace(moves_left=s.game.moves_left.at[padding].set(0))
    env.validate(s.replace(game=moved))  # untouched values are fine


def test_first_deployer_places_all_their_units_not_as_many_as_the_other_has():
    env = uneven_env()
    s = init(env)
    s = step(env, s, encode_deploy(env, s, "a1", 0, 0))
    data = view(env, s)
    # Player 2 places b1 while player 1 still has a2 to place: as many placed units (1) as
    # player 2 has, fewer than player 1 has (2): rule 7.1 is broken.
    data["units"]["b1"].update(col=3, row=0, deployOrder=1, deployHexSlot=0)
    data["deploymentSteps"] = 2
    data["deployment_state"]["deployable_units_by_player"]["player2"] = []
    data["deployment_state"]["deployed_units"] = ["a1", "b1"]
    with pytest.raises(tcgjax.SerializationError, match=r"\(7\.1\)"):
        tcgjax.from_json(env, json.dumps(data))


def test_validate_refuses_a_unit_on_the_row_past_the_board():
    # (from_json refuses such coordinates before validate runs: validate is called directly.)
    env = uneven_env()
    s = init(env)
    s = step(env, s, encode_deploy(env, s, "a1", 0, 0))
    env.validate(s)
    a1 = 0
    assert int(s.game.col[a1]) == 0 and int(s.game.row[a1]) == 0
    off = s.replace(game=s.game.replace(row=s.game.row.at[a1].set(2)))  # rows are 0-1
    with pytest.raises(tcgjax.TcgjaxError, match=r"units\.a1\.col: \(0, 2\) is neither"):
        env.validate(off)


@pytest.mark.parametrize("first_player", ["player1", "player2"])
def test_a_forfeit_records_the_illegal_action_as_the_reason_and_the_other_side_as_winner(
    first_player,
):
    # Under illegal_action="lose" an illegal move ends the game for its maker; the end reason is
    # its own (not elimination, turn limit or deadlock, spec 7.1) and the other side wins.
    env = make_env(skirmish_scenario(first_player=first_player), illegal_action="lose")
    state = init(env)
    loser = int(state.current_player)
    illegal = int(np.flatnonzero(~np.asarray(env.legal_action_mask(state)))[0])
    new = step(env, state, illegal)
    assert bool(new.terminated)
    game = view(env, new)
    assert game["endReason"] == "illegal_action"
    assert game["outcome"] == ("player2_won", "player1_won")[loser]
