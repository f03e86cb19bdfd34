"""The Pokémon names of moves (``env.describe_action``): a recorded turn from an explicit
situation with the shipped cards, named move by move in its phases (evolve, attach, Trainers and
the choices their effects ask for, the attack), the cards it keeps hidden from the other player,
and the other phases named from explicit states."""

import json

import jax
import numpy as np
import pytest

import tcgjax
from tcgjax import cli
from tcgjax.games.pokemon import rules as R
from tcgjax.games.pokemon.scenario import build_state
from tcgjax.replay import Recorder, frames, page_data, run, to_html

KEY = jax.random.PRNGKey(0)
# Player 1's turn 3: Tynamo Active, Tadbulb on Bench 2; the deck's top 4 (the last listed is the
# top): Tynamo, Zeraora, Nemona, Plusle; then two Basic Lightning Energy and Yamper.
SITUATION = [
    {
        "hand": ["sv3-68", "sve-4", "sv1-181", "sv1-194", "sv4-172", "sv1-170"],
        "slots": [["sv3-67"], None, ["sv2-78"]],
        "deck": ["sv5-58", "sve-4", "sve-4", "sv4-60", "sv1-180", "sv5-57", "sv3-67"],
    },
    {"slots": [["sv3-152"], ["sv3-144"]]},
]
HIDDEN = "put a card from the cards looked at into the hand"
# (kind, card id or offset, slot, the name, the phase it is made in, the name player 2 is told)
SCRIPT = [
    ("evolve", "sv3-68", 0, "evolve Tynamo (Active) into Eelektrik", "main", None),
    ("attach", "sve-4", 2, "attach Basic Lightning Energy to Tadbulb (Bench 2)", "main", None),
    ("play", "sv4-172", None, "play Rika", "main", None),  # look at 4, 2 into the hand
    ("select_card", "sv3-67", None, "put Tynamo from the cards looked at into the hand", "select",
     HIDDEN),
    ("select_card", "sv1-180", None, "put Nemona from the cards looked at into the hand", "select",
     HIDDEN),
    ("select_card", "sv5-57", None, "put Zeraora on the bottom of the deck", "select",
     "put a card on the bottom of the deck"),  # the rest in the player's order
    ("play", "sv1-170", None, "play Electric Generator", "main", None),
    ("select_card", "sve-4", None,
     "choose Basic Lightning Energy from the cards looked at to attach", "select", None),
    ("select_slot", 2, None, "attach Basic Lightning Energy to Tadbulb (Bench 2)", "select", None),
    ("done", 0, None, "choose nothing more for Electric Generator", "select", None),
    ("play", "sv1-181", None, "play Nest Ball", "main", None),
    ("select_card", "sv5-58", None, "put Yamper from the deck onto the Bench", "select", None),
    ("play", "sv1-194", None, "play Switch", "main", None),
    ("select_slot", 2, None, "switch in Tadbulb (Bench 2)", "select", None),
    ("attack", 1, None, "attack with Tadbulb (Active): Static Shock", "main", None),
]  # fmt: skip


@pytest.fixture(scope="module")
def env():
    return tcgjax.make("pokemon")


def _id(env, kind, card, slot):
    if isinstance(card, int):
        return env.action_layout.encode(kind, card)
    d = env.rules.cards.index(card)
    return env.action_layout.encode(kind, d if slot is None else d * R.NUM_SLOTS + slot)


def _state(env, players, **situation):
    game = build_state(env.rules, players, **situation)
    return jax.jit(env.finalize)(jax.jit(env.init)(KEY).replace(game=game))


@pytest.fixture(scope="module")
def recorded(env):
    start = _state(env, SITUATION, turn=3)
    env.validate(start)
    recorder = Recorder(env, start)
    for i, (kind, card, slot, *_) in enumerate(SCRIPT):
        recorder.step(_id(env, kind, card, slot), jax.random.PRNGKey(i))
    replay = json.loads(json.dumps(recorder.export()))
    return replay, [state for _, state, _ in frames(replay)]


def test_the_recorded_names_name_the_cards_in_each_phase(env, recorded):
    replay, states = recorded
    assert [c["payload"]["actionName"] for c in replay["commandLog"]] == [s[3] for s in SCRIPT]
    for (kind, card, slot, name, phase, told), before in zip(SCRIPT, states, strict=False):
        action = _id(env, kind, card, slot)
        assert R.PHASES[int(before.game.board.phase)] == phase
        assert env.describe_action(before, action) == name
        assert env.describe_action(before, action, viewer=0) == name  # the actor sees it all
        assert env.describe_action(before, action, viewer=1) == (told or name)
    assert env.action_name(_id(env, "select_slot", 2, None)) == "select_slot[own bench2]"
    assert int(run(replay).current_player) == 1, "the attack ended the turn"


def test_the_legal_moves_of_each_position_have_distinct_names(env, recorded):
    _, states = recorded
    for state in states:
        legal = np.flatnonzero(np.asarray(state.legal_action_mask)).tolist()
        names = [env.describe_action(state, a) for a in legal]
        assert len(set(names)) == len(names), names
    for state in (states[3], states[5], states[8]):  # every id, in the effects' choices
        assert all(env.describe_action(state, a) for a in range(env.num_actions))


def test_the_replay_page_names_the_moves_for_its_viewer(recorded, tmp_path):
    replay, _ = recorded
    for viewer, column in ((0, 3), (1, 5)):
        path = to_html(replay, tmp_path / f"pokemon_{viewer}.html", viewer=viewer)
        shown = [p["views"][0]["action"] for p in page_data(path)["positions"][1:]]
        assert shown == [s[column] or s[3] for s in SCRIPT]


# --------------------------------------------------------------------------------------------------
# The other phases, from explicit states

TABLE = [
    {"hand": ["sv3-67", "sv2-78", "sve-4"], "slots": [["sv2-78", "sve-4"], ["sv3-67"]]},
    {"slots": [["sv3-154", "sv1-142"], ["sv3-152"]], "hand": ["sve-8"]},  # Revavroom Active
]


@pytest.mark.parametrize(
    ("phase", "active", "kind", "card", "slot", "name", "told"),
    [
        ("setup_active", 0, "play", "sv3-67", None,
         "put Tynamo face down as the Active Pokémon", "put a card face down as the Active Pokémon"),
        ("setup_bench", 0, "play", "sv2-78", None,
         "put Tadbulb face down on the Bench", "put a card face down on the Bench"),
        ("setup_bench", 0, "done", 0, None, "finish setting up the Bench", None),
        ("mulligan_draw", 0, "yes", 0, None, "draw 1 more card (the opponent's mulligan)", None),
        ("mulligan_draw", 0, "done", 0, None, "draw no more cards", None),
        ("main", 0, "retreat", 0, None, "retreat Tadbulb (Active) for Tynamo (Bench 1)", None),
        ("main", 0, "attack", 3, None, "attack with Tadbulb (Active): attack 3 (none)", None),
        ("main", 0, "play", "sv3-67", None, "play Tynamo onto the Bench", None),
        ("main", 0, "evolve", "sv3-68", 4, "evolve nothing (Bench 4 is empty) into Eelektrik",
         None),
        ("main", 1, "ability", 0, None, "use Rumbling Engine of Revavroom (Active)", None),
        ("main", 1, "end_turn", 0, None, "end the turn", None),
        ("retreat_payment", 0, "select_card", "sve-4", None,
         "discard Basic Lightning Energy from Tadbulb (Active) (retreat cost)", None),
        ("promote", 0, "select_slot", 1, None, "promote Tynamo (Bench 1) to the Active Spot",
         None),
        # An illegal id is named by what it would mean: the opponent's Bench 1 (slots 6-11).
        ("promote", 1, "select_slot", 7, None,
         "promote Tynamo (the opponent's Bench 1) to the Active Spot", None),
    ],
)  # fmt: skip
def test_moves_are_named_in_every_phase(env, phase, active, kind, card, slot, name, told):
    state = _state(env, TABLE, phase=phase, active=active)
    action = _id(env, kind, card, slot)
    assert env.describe_action(state, action) == name
    assert env.describe_action(state, action, viewer=1 - active) == (told or name)


def test_tcgjax_play_hides_a_face_down_card_of_the_other_player(env, capsys):
    state = _state(env, TABLE, phase="setup_active")
    names = cli._print_moves(env, state, seat=0)  # the player to act sees their card
    out = capsys.readouterr().out
    tynamo = _id(env, "play", "sv3-67", None)
    assert f"  {tynamo}: put Tynamo face down as the Active Pokémon\n" in out
    assert names["put Tynamo face down as the Active Pokémon"] == tynamo
    # What the other seat is told the player did.
    assert cli._named(env, state, tynamo, 1) == "put a card face down as the Active Pokémon"


# --------------------------------------------------------------------------------------------------
# The Chien-Pao ex deck's new choices: an Ability only from the Active Spot, Supporters from the
# discard pile into the deck, and Hail Blade's two-step "discard any amount for damage"

CHIEN_PAO_SITUATION = [
    {
        "hand": ["sv1-182"],
        "slots": [["svp-30", "sve-3", "sve-3"], ["sv2-58", "sve-3"]],
        "discard": ["sv1-180"],
    },
    {"slots": [["sv2-46"], ["sv1-46"]]},
]
CHIEN_PAO_SCRIPT = [
    ("ability", 0, None, "use Shivery Chill of Chien-Pao ex (Active)", "main", None),
    ("select_card", "sve-3", None, "put Basic Water Energy from the deck into the hand", "select",
     "put a card from the deck into the hand"),
    ("done", 0, None, "choose nothing more for Chien-Pao ex", "select", None),
    ("play", "sv1-182", None, "play Pal Pad", "main", None),
    ("select_card", "sv1-180", None, "shuffle Nemona from the discard pile into the deck",
     "select", None),
    ("attack", 0, None, "attack with Chien-Pao ex (Active): Hail Blade", "main", None),
    ("select_slot", 1, None, "discard Energy from Frigibax (Bench 1) (for damage)", "select",
     None),
    ("select_card", "sve-3", None, "discard Basic Water Energy from Frigibax (Bench 1)", "select",
     None),
    ("done", 0, None, "choose nothing more for Chien-Pao ex", "select", None),
]  # fmt: skip


def test_the_chien_pao_decks_choices_are_named(tmp_path):
    env = tcgjax.make("pokemon", decks=("chien_pao", "chien_pao"))
    start = _state(env, CHIEN_PAO_SITUATION, turn=3)
    recorder = Recorder(env, start)
    for i, (kind, card, slot, *_) in enumerate(CHIEN_PAO_SCRIPT):
        recorder.step(_id(env, kind, card, slot), jax.random.PRNGKey(i))
    replay = json.loads(json.dumps(recorder.export()))
    states = [state for _, state, _ in frames(replay)]
    assert [c["payload"]["actionName"] for c in replay["commandLog"]] == [
        s[3] for s in CHIEN_PAO_SCRIPT
    ]
    for (kind, card, slot, name, phase, told), before in zip(
        CHIEN_PAO_SCRIPT, states, strict=False
    ):
        action = _id(env, kind, card, slot)
        assert R.PHASES[int(before.game.board.phase)] == phase
        assert env.describe_action(before, action, viewer=1) == (told or name)
    end = run(replay)
    assert int(end.current_player) == 1 and int(end.game.damage[1, 0]) == 60


def test_rare_candy_and_a_tool_are_named():
    deck = {"name": "candy", "cards": {"sv2-58": 4, "sv2-60": 4, "sv1-191": 4, "sv1-197": 4,
                                       "sve-3": 44}}  # fmt: skip
    env = tcgjax.make("pokemon", decks=(deck, deck))
    start = _state(
        env,
        [{"slots": [["sv2-58"], ["sv2-58"]], "hand": ["sv1-191", "sv2-60", "sv1-197"]},
         {"slots": [["sv2-58"]]}],
        turn=3,
    )  # fmt: skip
    script = [
        ("attach", "sv1-197", 1, "attach Vitality Band to Frigibax (Bench 1)"),
        ("play", "sv1-191", None, "play Rare Candy"),
        ("select_card", "sv2-60", None,
         "choose Baxcalibur from the hand to evolve a Basic Pokémon into"),
        ("select_slot", 1, None, "evolve Frigibax (Bench 1) into Baxcalibur"),
    ]  # fmt: skip
    recorder = Recorder(env, start)
    for i, (kind, card, slot, _) in enumerate(script):
        recorder.step(_id(env, kind, card, slot), jax.random.PRNGKey(i))
    replay = json.loads(json.dumps(recorder.export()))
    assert [c["payload"]["actionName"] for c in replay["commandLog"]] == [s[3] for s in script]
    end = run(replay).game
    pile = [
        c
        for c in range(end.board.zone.shape[0])
        if int(end.board.zone[c]) == int(R.slot_zone(0, 1))
    ]
    pile.sort(key=lambda c: int(end.board.position[c]))
    assert [env.rules.cards.ids[int(end.board.definition[c])] for c in pile] == [
        "sv2-58", "sv1-197", "sv2-60"
    ]  # fmt: skip
