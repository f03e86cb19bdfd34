"""The Digimon names of moves (``env.describe_action``, ``actions.describe``): a recorded game
from an explicit situation with the starter cards, named move by move in its phases (a digivolve
with both cards, a selection with the selected card, a block with the blocker), the same names in
``tcgjax play``'s listing and on the replay page, and the phases no recording of the starters
reaches, named from explicit states."""

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tcgjax
from tcgjax import cli
from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon.scenario import build_state
from tcgjax.replay import Recorder, frames, page_data, run, to_html

KEY = jax.random.PRNGKey(0)
SITUATION = [
    {"hand": ["ST1-07", "ST1-15", "ST1-03"], "field": [["ST1-03"]]},  # Greymon, Giga Destroyer
    {"field": [["ST2-07"], ["ST2-03"]]},  # Grizzlymon (<Blocker>), Gabumon
]
# (the move, its name in the position it is made in, the phase there, the id's phase-free name)
SCRIPT = [
    (
        A.encode("digivolve", 0, 0),
        "digivolve Greymon (hand 0) onto Agumon (field 0)",
        "main",
        "digivolve[hand0->field0]",
    ),
    (A.encode("play", 0), "play Giga Destroyer (hand 0)", "main", "play[0]"),
    # Giga Destroyer deletes up to 2 of the opponent's Digimon with 4000 DP or less: Gabumon.
    (
        113,
        "select Gabumon in the opponent's field (field 1)",
        "select_target",
        "attack[0->unused13]",
    ),
    (
        A.encode("attack", 0, A.TARGET_PLAYER),
        "attack the player with Greymon (field 0)",
        "main",
        "attack[0->player]",
    ),
    (100, "block with Grizzlymon (field 0)", "block_timing", "attack[0->field0]"),
    (62, "pass", "main", "pass"),
    (60, "hatch", "breeding", "hatch"),
]


@pytest.fixture(scope="module")
def env():
    return tcgjax.make("digimon")


@pytest.fixture(scope="module")
def start(env):
    blank = jax.jit(env.init)(KEY)
    game = build_state(env.rules, SITUATION, memory=10, phase="main")
    state = jax.jit(env.finalize)(blank.replace(game=game))
    env.validate(state)
    return state


@pytest.fixture(scope="module")
def recorded(env, start):
    """The scripted game, recorded with fixed keys, and the positions it went through."""
    recorder = Recorder(env, start)
    for i, (action, *_) in enumerate(SCRIPT):
        recorder.step(action, jax.random.PRNGKey(i))
    replay = json.loads(json.dumps(recorder.export()))
    return replay, [state for _, state, _ in frames(replay)]


def test_the_recorded_names_name_the_cards_in_each_phase(env, recorded):
    replay, states = recorded
    names = [c["payload"]["actionName"] for c in replay["commandLog"]]
    assert names == [name for _, name, _, _ in SCRIPT]
    for (action, name, phase, free), before in zip(SCRIPT, states, strict=False):
        assert A.PHASES[int(before.game.board.phase)] == phase
        assert env.describe_action(before, action) == name
        assert env.action_name(action) == free  # the id's Main-phase meaning, unchanged
    assert int(states[4].current_player) == 1, "the defender blocks"
    assert int(states[6].current_player) == 1, "player 2's breeding phase"
    assert bool(run(replay).game.board.turn_number == 3)  # the log verifies, names included


def test_the_legal_moves_of_each_position_have_distinct_names(env, recorded):
    _, states = recorded
    for state in states:
        legal = np.flatnonzero(np.asarray(state.legal_action_mask)).tolist()
        names = [env.describe_action(state, a) for a in legal]
        assert len(set(names)) == len(names), names
    # The block timing offers exactly the block and the decline, named as such.
    block = states[4]
    legal = np.flatnonzero(np.asarray(block.legal_action_mask)).tolist()
    assert [env.describe_action(block, a) for a in legal] == [
        "do not block",
        "block with Grizzlymon (field 0)",
    ]
    # Every id gets a name in every phase, legal or not (never an exception).
    for state in (states[2], states[4], states[6]):
        assert all(env.describe_action(state, a) for a in range(A.NUM_ACTIONS))


def test_tcgjax_play_lists_the_moves_by_their_names_in_the_position(env, recorded, capsys):
    _, states = recorded
    names = cli._print_moves(env, states[4], seat=1)  # the defender's block timing
    out = capsys.readouterr().out
    assert out == "legal moves:\n  62: do not block\n  100: block with Grizzlymon (field 0)\n"
    assert names["block with Grizzlymon (field 0)"] == 100 and names["do not block"] == 62
    assert names["attack[0->field0]"] == 100  # the phase-free name still types the id
    names = cli._print_moves(env, states[2], seat=0)  # Giga Destroyer's selection
    assert "  113: select Gabumon in the opponent's field (field 1)\n" in capsys.readouterr().out
    assert cli._named(env, states[0], 400, 1) == SCRIPT[0][1]  # what the other seat is told


def test_the_replay_page_shows_the_names_in_the_position(recorded, tmp_path):
    replay, _ = recorded
    path = to_html(replay, tmp_path / "digimon.html", viewer=1)
    data = page_data(path)
    assert data["views"] == ["player 2"]
    shown = data["positions"]
    assert [p["views"][0]["action"] for p in shown[1:]] == [name for _, name, _, _ in SCRIPT]
    actors = ["player 1"] * 4 + ["player 2", "player 1", "player 2"]
    assert [p["actor"] for p in shown[1:]] == actors


def test_an_older_recording_with_phase_free_names_replays_and_shows_the_new_names(
    recorded, tmp_path
):
    replay, states = recorded
    old = json.loads(json.dumps(replay))
    del old["replayFormat"]  # an older recording: format 1, no digests of the record either
    del old["final"]["record"]
    for (_, _, _, free), command in zip(SCRIPT, old["commandLog"], strict=True):
        command["payload"]["actionName"] = free
    assert int(run(old).step_count) == int(states[-1].step_count)
    shown = page_data(to_html(old, tmp_path / "old.html"))["positions"]
    names = {view["action"] for p in shown for view in p["views"]}
    assert "block with Grizzlymon (field 0)" in names
    assert "attack[0->field0]" not in names
    # A current recording may not carry the old name of the block.
    renamed = json.loads(json.dumps(replay))
    renamed["commandLog"][4]["payload"]["actionName"] = "attack[0->field0]"
    with pytest.raises(tcgjax.ReplayError, match=r"commandLog\[4\]\.payload\.actionName.*block"):
        run(renamed)


# --------------------------------------------------------------------------------------------------
# SelectEffectChoice: the mulligan (stage 2), the order of simultaneous effects (stage 1), the
# branch of a choose_one row (stage 0)


def _with_selection(state, **fields):
    game = state.game
    board = game.board.replace(phase=jnp.int8(A.PHASES.index("select_effect_choice")))
    selection = game.selection.replace(**{k: jnp.asarray(v, jnp.int8) for k, v in fields.items()})
    return state.replace(game=game.replace(board=board, selection=selection))


def test_the_mulligan_is_named_keep_or_redraw(env):
    state = jax.jit(env.init)(KEY)
    assert int(state.game.selection.stage) == A.CHOICE_MULLIGAN, "the deal asks for the mulligan"
    legal = np.flatnonzero(np.asarray(state.legal_action_mask)).tolist()
    assert [env.describe_action(state, a) for a in legal] == [
        "keep the opening hand",
        "redraw the opening hand (mulligan)",
    ]
    assert env.action_name(1000) == "activate[0.0]"  # the phase-free name says nothing of it


def test_the_order_of_simultaneous_effects_and_the_branches_are_named(env, start):
    # Grizzlymon over Gabumon attacks: Grizzlymon's [When Attacking] and Gabumon's inherited one
    # trigger together, and player 2 orders them (G10).
    players = [{"field": [["ST1-01", "ST1-03"]], "security": ["ST1-02"]},
               {"field": [["ST2-03", "ST2-07"]]}]  # fmt: skip
    game = build_state(env.rules, players, active=1, memory=3)
    attacking = jax.jit(env.finalize)(start.replace(game=game))
    ordering = jax.jit(env.step)(attacking, A.encode("attack", 0, A.TARGET_PLAYER), KEY)
    assert int(ordering.game.selection.stage) == A.CHOICE_ORDER
    legal = np.flatnonzero(np.asarray(ordering.legal_action_mask)).tolist()
    assert [env.describe_action(ordering, a) for a in legal] == [
        "resolve Grizzlymon's effect first",
        "resolve Gabumon's effect first",
    ]
    assert env.describe_action(ordering, 1002) == "id 1002 (no pending effect 2 to resolve first)"
    definitions = np.asarray(start.game.board.definition)
    agumon = int(np.flatnonzero(definitions == env.rules.cards.index("ST1-03"))[0])
    pending = start.game.selection.replace(card=jnp.int16(agumon), row=jnp.int8(0))
    branch = _with_selection(start.replace(game=start.game.replace(selection=pending)), stage=0)
    assert env.describe_action(branch, 1002) == "choose branch 2 of Agumon's effect"
    assert env.describe_action(branch, 62) == "decline: choose nothing more for Agumon"


# --------------------------------------------------------------------------------------------------
# The other phases, from explicit states (the starters' recordings rarely reach them)

PLAYERS = [
    {
        "hand": ["ST1-07", "ST1-05"],  # Greymon, Birdramon
        "field": [["ST1-03", "ST1-07"], ["ST1-02"]],  # Greymon over Agumon; Biyomon
        "trash": ["ST1-13", "ST1-04"],  # Shadow Wing, Dracomon
        "breeding": ["ST1-01"],  # Koromon
        "security": ["ST1-16", "ST1-10"],
    },
    {"hand": ["ST2-06"], "field": [["ST2-03"]], "security": ["ST2-02"]},
]


@pytest.mark.parametrize(
    ("phase", "active", "action", "name"),
    [
        ("main", 0, A.encode("attack", 1, 0), "attack Gabumon in the opponent's field (field 0) "
         "with Biyomon (field 1)"),
        ("main", 0, A.encode("digivolve", 1, A.BREEDING_FIELD),
         "digivolve Birdramon (hand 1) onto Koromon (breeding area)"),
        ("main", 0, A.encode("activate", 0, 1), "activate effect 1 of Greymon (field 0)"),
        ("main", 0, A.encode("dna", 0), "DNA digivolve Greymon (hand 0)"),
        ("main", 0, A.encode("play", 5), "play nothing (hand 5 is empty)"),
        ("breeding", 0, 61, "move Koromon (breeding area) to the battle area"),
        # The attack timings: player 2 defends (the active player attacks).
        ("counter_timing", 0, A.encode("digivolve", 0, 0),
         "blast digivolve Garurumon (hand 0) onto Gabumon (field 0)"),
        ("counter_timing", 0, 62, "do not blast digivolve"),
        ("block_timing", 0, 62, "do not block"),
        ("select_hand", 0, 31, "trash Birdramon (hand 1)"),
        ("select_hand", 0, 0, "choose Greymon (hand 0)"),
        ("select_reveal", 0, 30, "choose nothing (revealed 0 is empty)"),
        ("select_trash", 0, 131, "choose Dracomon (trash 1) from your trash"),
        ("select_security", 0, 40, "choose your security card 0 from the top (face down)"),
        ("select_security", 0, 51, "choose the opponent's security card 1 from the top (face down)"),
        ("select_material", 0, 101, "choose Biyomon (field 1) as a DNA material"),
        ("select_target", 0, 101, "select Biyomon in your field (field 1)"),
        ("select_target", 0, 99, "select Koromon (breeding area)"),
        ("select_source", 0, A.encode("source", 0, 0),
         "choose Agumon (source 0) under Greymon (field 0)"),
        ("select_source", 0, A.encode("source", 0, 1),
         "choose nothing (no source 1 under Greymon (field 0))"),
        ("select_source", 0, 5, "id 5 (not a move in the select source phase)"),
    ],
)  # fmt: skip
def test_moves_are_named_in_every_phase(env, phase, active, action, name):
    game = build_state(env.rules, PLAYERS, phase=phase, active=active)
    state = jax.jit(env.finalize)(jax.jit(env.init)(KEY).replace(game=game))
    assert env.describe_action(state, action) == name
    assert A.describe(env.rules, game, action) == name  # the same from the rules state
