"""The Digimon picture from explicit situations: stacks with the rules' DP, suspended
permanents, the memory gauge, hidden cards for a viewer, the result of a finished game."""

import xml.etree.ElementTree as ET

import jax
import jax.numpy as jnp
import pytest

import tcgjax
from tcgjax.core import render
from tcgjax.core.env import State
from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon import rules as R
from tcgjax.games.digimon.scenario import build_state


@pytest.fixture(scope="module")
def env():
    return tcgjax.make("digimon")


def _state(game, *, winner=None):
    """An env ``State`` around a rules state (the picture reads the game and the status)."""
    if winner is not None:
        game = game.replace(winner=jnp.int8(winner), end_reason=jnp.int8(1))
    return State(
        current_player=game.board.active_player.astype(jnp.int32),
        observation=jnp.zeros(1),
        legal_action_mask=jnp.zeros(1, bool),
        rewards=jnp.zeros(2),
        terminated=jnp.bool_(winner is not None),
        truncated=jnp.bool_(False),
        step_count=jnp.int32(12),
        error=jnp.int32(0),
        game=game,
    )


@pytest.fixture(scope="module")
def situation(env):
    return build_state(
        env.rules, active=0, memory=3, phase="main", turn=5,
        players=[
            {"hand": ["ST1-13"], "field": [["ST1-03", "ST1-07"], None, ["ST1-02"]],
             "suspended": [2], "security": ["ST1-16", "ST1-02"]},
            {"hand": ["ST2-02"], "field": [["ST2-04"]], "breeding": ["ST2-01"]},
        ],
    )  # fmt: skip


def _line(text, start):
    (line,) = [ln.strip() for ln in text.splitlines() if ln.strip().startswith(start)]
    return line


def test_a_stack_shows_its_top_card_over_its_sources_and_the_dp_the_rules_give(env, situation):
    text = env.render(_state(situation)).text
    # Greymon 4000 DP + Agumon's inherited +1000 on its owner's turn (the rules' DP, not printed).
    assert _line(text, "slot 1 (2)") == (
        "slot 1 (2): Greymon (ST1-07 red Lv4 4000 DP) over Agumon (ST1-03 red Lv3 2000 DP)"
        "  [5000 DP]"
    )
    assert _line(text, "slot 3 (1)").endswith("[3000 DP, suspended]")
    assert "slot 2" not in text  # an empty battle-area slot is left out
    assert _line(text, "breeding (1)").startswith("breeding (1): Tsunomon")


def test_on_the_opponents_turn_the_inherited_your_turn_bonus_is_gone(env, situation):
    theirs = situation.replace(board=situation.board.replace(active_player=jnp.int8(1)))
    text = env.render(_state(theirs)).text
    assert _line(text, "slot 1 (2)").endswith("[4000 DP]")


def test_the_memory_gauge_reads_from_player_1s_side(env, situation):
    text = env.render(_state(situation)).text
    assert "memory: P2 |·············●·······| P1  (3 on player 1's side)" in text
    # The same gauge with player 2 active: memory is stored from the active player's side.
    theirs = situation.replace(board=situation.board.replace(active_player=jnp.int8(1)))
    assert "(3 on player 2's side)" in env.render(_state(theirs)).text


def test_a_viewer_sees_security_and_the_opponents_hand_face_down(env, situation):
    mine = env.render(_state(situation), viewer=0).text
    assert "Gomamon" not in mine  # player 2's hand card
    assert _line(mine, "hand (1): Shadow Wing")
    assert _line(mine, "security (2)") == "security (2): top (face down); 2 face down"
    theirs = env.render(_state(situation), viewer=1).text
    assert "Shadow Wing" not in theirs and "Gomamon" in theirs
    everything = env.render(_state(situation)).text
    assert _line(everything, "security (2)").startswith("security (2): top Biyomon")


def test_the_svg_is_a_document_naming_each_face_up_card(env, situation):
    root = ET.fromstring(env.render(_state(situation), viewer=0).svg)
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert root.find("{http://www.w3.org/2000/svg}text").text == "Digimon: turn 5, main phase"
    assert {"Greymon", "Agumon", "Biyomon", "Bearmon", "Tsunomon", "5000 DP"} <= set(texts)
    assert "Gomamon" not in texts


def test_a_finished_game_names_the_winner_and_the_reason(env, situation):
    text = env.render(_state(situation, winner=1)).text
    assert text.splitlines()[1] == (f"game over: player 2 won ({R.END_REASONS[1]}); step 12")


def test_the_pictures_equal_their_snapshots(env, situation, picture_snapshot):
    # Stacks with sources, the memory gauge, suspended permanents, the breeding area, security.
    for viewer in (None, 0, 1):
        picture_snapshot(env.render(_state(situation), viewer=viewer), f"digimon_viewer_{viewer}")
    picture_snapshot(env.render(_state(situation, winner=1)), "digimon_finished")


def test_a_pending_choice_names_its_card_in_the_header(env, situation):
    # Card instance 0 as well as any other: the header names the card whose effect waits.
    for card in (0, 7):
        selection = situation.selection.replace(card=jnp.int16(card), left=jnp.int8(2))
        text = env.render(_state(situation.replace(selection=selection))).text
        name = render.card_definition(env.rules.layout, situation.board, card)["name"]
        assert f"choosing for {name}: 2 choice(s) left" in text.splitlines()[:4], text
    assert "choosing for" not in env.render(_state(situation)).text  # nothing pending


def test_the_mulligan_header_names_the_decision_not_a_hidden_hand_card(env):
    """The mulligan's record points at a card of the decider's hand only to say who decides; the
    header names the decision, so the other player's picture never shows that hidden card."""
    deal = jax.jit(env.init)(jax.random.PRNGKey(0))  # both players still to decide (G10)
    selection = deal.game.selection
    assert int(selection.stage) == A.CHOICE_MULLIGAN and int(selection.card) >= 0
    decider = int(deal.game.board.owner[int(selection.card)])
    hidden = render.card_definition(env.rules.layout, deal.game.board, int(selection.card))["name"]
    for viewer in (None, 0, 1):
        header = env.render(deal, viewer=viewer).text.splitlines()[:4]
        assert f"mulligan: player {decider + 1} keeps the opening hand or redraws 5" in header
        assert not any(hidden in line for line in header), header
