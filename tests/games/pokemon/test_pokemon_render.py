"""The Pokémon picture from explicit situations: the Pokémon on top of its attachments, HP left,
Special Conditions, Prize cards hidden from both players, the opponent's hand for a viewer."""

import xml.etree.ElementTree as ET

import jax.numpy as jnp
import pytest

import tcgjax
from tcgjax.core.env import State
from tcgjax.games.pokemon.scenario import build_state


@pytest.fixture(scope="module")
def env():
    return tcgjax.make("pokemon")


def _state(game):
    return State(
        current_player=game.board.active_player.astype(jnp.int32),
        observation=jnp.zeros(1),
        legal_action_mask=jnp.zeros(1, bool),
        rewards=jnp.zeros(2),
        terminated=jnp.bool_(False),
        truncated=jnp.bool_(False),
        step_count=jnp.int32(3),
        error=jnp.int32(0),
        game=game,
    )


@pytest.fixture(scope="module")
def situation(env):
    return build_state(
        env.rules, active=0, turn=3,
        players=[
            {"hand": ["sve-4"], "slots": [["sv3-67", "sve-4"], None, ["sv3-67"]],
             "damage": {0: 30}, "conditions": {"rotated": "asleep", "poisoned": True}},
            {"hand": ["sv3-152"], "slots": [["sv4-136"]]},
        ],
    )  # fmt: skip


def _line(text, start):
    (line,) = [ln.strip() for ln in text.splitlines() if ln.strip().startswith(start)]
    return line


def test_the_pokemon_is_on_top_of_its_energy_with_hp_left_and_conditions(env, situation):
    text = env.render(_state(situation)).text
    assert _line(text, "Active (2)") == (
        "Active (2): Tynamo (sv3-67 basic lightning 40 HP) over Basic Lightning Energy "
        "(sve-4 basic energy)  [HP 10/40, asleep, poisoned]"
    )
    assert _line(text, "Bench 2 (1)").endswith("[HP 40/40]")
    assert text.count("Bench 1 (0): empty") == 2  # both players' first Bench slots
    assert "--- player 1: 6 Prize cards left" in text


def test_prize_cards_are_hidden_from_both_players_and_hands_from_the_opponent(env, situation):
    for viewer in (0, 1):
        text = env.render(_state(situation), viewer=viewer).text
        prizes = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("Prize cards")]
        assert prizes == ["Prize cards (6): top (face down); 6 face down"] * 2
    assert "Meltan" not in env.render(_state(situation), viewer=0).text
    assert "Meltan" in env.render(_state(situation), viewer=1).text


def test_the_svg_draws_energy_as_typed_badges_and_damage_as_a_counter(env, situation):
    root = ET.fromstring(env.render(_state(situation), viewer=0).svg)
    ns = "{http://www.w3.org/2000/svg}"
    body = list(root)  # drawing order (the card faces are symbols in <defs>, placed by <use>)
    active = next(k for k, e in enumerate(body) if e.tag == f"{ns}text" and e.text == "Active (2)")
    after = body[active:]
    # The Energy is no card of the stack: one Tynamo card, then its Lightning Energy as a yellow
    # "L" badge naming the card on hover, the 30 damage on the card, and the note.
    uses = [e for e in after if e.tag == f"{ns}use"]
    assert uses[0].find(f"{ns}title").text.startswith("Tynamo (sv3-67)")
    badge = next(e for e in after if e.tag == f"{ns}circle")
    assert badge.find(f"{ns}title").text == "Basic Lightning Energy"
    assert badge.get("fill") == "#f2c200"
    texts = [e.text for e in after if e.tag == f"{ns}text"]
    # The note wraps under its column rather than run into the Bench's.
    assert texts[:5] == ["Active (2)", "30", "L", "HP 10/40, asleep,", "poisoned"]
    # Hover text: each attack with its cost (one letter per Energy) and damage.
    tynamo = uses[0].find(f"{ns}title").text
    assert tynamo.splitlines()[1:] == [
        "basic lightning Pokémon, 40 HP, retreat 1",
        "[L] Static Shock 10",
        "[LC] Tiny Bolt 30",
    ]


def test_the_pictures_equal_their_snapshots(env, situation, picture_snapshot):
    # The Active and Bench stacks with Energy under the Pokémon, Prize cards, conditions.
    for viewer in (None, 0, 1):
        picture_snapshot(env.render(_state(situation), viewer=viewer), f"pokemon_viewer_{viewer}")
