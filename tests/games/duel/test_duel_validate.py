"""The duel's invariants (``DuelRules.validate`` through ``env.validate``): one JSON state per
invariant, a reachable situation with one fact edited, rejected by ``from_json`` naming the field."""

import copy
import json

import jax
import jax.numpy as jnp
import pytest

import tcgjax
from tcgjax.games.duel.rules import ACTIONS
from tcgjax.games.duel.scenario import build_state

KEY = jax.random.PRNGKey(0)


@pytest.fixture(scope="module")
def situation(duel_env):
    """Player 1: wolf on the board (exhausted), goblin and spark in hand, 2 of 3 mana, life 7;
    player 2: knight on the board, 2 cards in deck, life 5. The game goes on."""
    state = build_state(
        duel_env,
        [
            {
                "hand": ["goblin", "spark"],
                "board": ["wolf"],
                "exhausted": [0],
                "mana": 2,
                "max_mana": 3,
                "deck": ["knight", "dragon"],
                "life": 7,
            },
            {"board": ["knight"], "deck": ["goblin", "wolf"], "life": 5},
        ],
    )
    return json.loads(tcgjax.to_json(duel_env, state))


def _card(data, player, zone, position=0):
    """The id of the card at ``position`` of ``zone`` of ``player`` in the JSON view."""
    zone_id = f"{zone}_{player}"
    (cid,) = [
        c for c, e in data["cards"].items() if e["zoneId"] == zone_id and e["position"] == position
    ]
    return cid


def _attrs(player, **values):
    def edit(data):
        data["players"][player]["attributes"].update(values)

    return edit


def _game(**values):
    """Edit the rules fields; a game with a winner is also terminated in the env fields."""

    def edit(data):
        data["game"].update(values)
        if data["game"]["winner"] != -1:
            data["env"].update(terminated=True, rewards=[1.0, -1.0])

    return edit


def _move_top_card(player, src, dst_player, dst):
    """Move the top card of ``src`` onto ``dst`` keeping positions dense (a legal-looking move)."""

    def edit(data):
        count = lambda z: sum(e["zoneId"] == z for e in data["cards"].values())  # noqa: E731
        cid = _card(data, player, src, count(f"{src}_{player}") - 1)
        entry = data["cards"][cid]
        entry["position"] = count(f"{dst}_{dst_player}")
        entry["zoneId"] = f"{dst}_{dst_player}"

    return edit


def _turn(**values):
    def edit(data):
        data["turnState"].update(values)

    return edit


def _version(value):
    def edit(data):
        data["version"] = value

    return edit


def _swap_deck_bottoms(data):
    """Exchange everything but the id of player 1's and player 2's bottom deck cards: each player
    still holds the decklist in their own zones, but the two instances changed owners."""
    a, b = _card(data, "player1", "deck"), _card(data, "player2", "deck")
    for key in (
        "definitionId",
        "ownerId",
        "zoneId",
        "position",
        "visibilityOverride",
        "attributes",
    ):
        data["cards"][a][key], data["cards"][b][key] = data["cards"][b][key], data["cards"][a][key]


def _card_edit(player, zone, position=0, **fields):
    def edit(data):
        entry = data["cards"][_card(data, player, zone, position)]
        for key, value in fields.items():
            if key == "exhausted":
                entry["attributes"]["exhausted"] = value
            else:
                entry[key] = value

    return edit


CASES = [
    # The turn state (issue #33: a negative turn number used to load).
    ("turn_number_negative", _turn(turnNumber=-1), "turnState.turnNumber", "-1 < 1"),
    ("turn_number_zero", _turn(turnNumber=0), "turnState.turnNumber", "0 < 1"),
    ("active_player_off_parity", _turn(turnNumber=2), "turnState.activePlayerId", "odd turns"),
    ("version_negative", _version(-1), "version", "-1 < 0"),
    ("owner_not_as_dealt", _swap_deck_bottoms, "cards.", "not as dealt"),
    ("winner_out_of_range", _game(winner=2, end_reason=1), "game.winner", "neither -1"),
    ("winner_without_reason", _game(winner=0), "game.end_reason", "does not agree"),
    ("reason_without_winner", _game(end_reason=1), "game.end_reason", "does not agree"),
    (
        "life_win_with_loser_alive",
        _game(winner=0, end_reason=1),
        "game.end_reason",
        "loser has 5 life",
    ),
    (
        "deck_out_with_cards_left",
        _game(winner=0, end_reason=2),
        "game.end_reason",
        "loser has 2 cards in deck",
    ),
    (
        "life_above_start",
        _attrs("player2", life=13),
        "players.player2.attributes.life",
        "above the starting 12",
    ),
    (
        "dead_player_game_goes_on",
        _attrs("player2", life=0),
        "players.player2.attributes.life",
        "but the game goes on",
    ),
    (
        "max_mana_above_cap",
        _attrs("player1", max_mana=6, mana=6),
        "players.player1.attributes.max_mana",
        "[0, 5]",
    ),
    (
        "mana_above_max_mana",
        _attrs("player1", mana=4),
        "players.player1.attributes.mana",
        "max_mana=3",
    ),
    ("mana_negative", _attrs("player1", mana=-1), "players.player1.attributes.mana", "max_mana=3"),
    (
        "not_the_decklist",
        _card_edit("player1", "hand", 0, definitionId="dragon"),
        "players.player1",
        "not the decklist",
    ),
    (
        "card_in_the_opponents_zone",
        _move_top_card("player1", "hand", "player2", "discard"),
        "cards.",
        "in discard_player2",
    ),
    (
        "spell_on_the_board",
        _move_top_card("player1", "hand", "player1", "board"),
        "cards.",
        "a spell on the board",
    ),
    (
        "exhausted_off_the_board",
        _card_edit("player1", "hand", 0, exhausted=1),
        "cards.",
        "off the board",
    ),
    ("exhausted_not_a_flag", _card_edit("player1", "board", 0, exhausted=2), "cards.", "not 0/1"),
    (
        "visibility_override",
        _card_edit("player1", "hand", 0, visibilityOverride="public"),
        "cards.",
        "never overrides visibility",
    ),
]


@pytest.mark.parametrize(
    ("edit", "field", "fragment"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_from_json_rejects_a_state_breaking_one_invariant(
    duel_env, situation, edit, field, fragment
):
    tcgjax.from_json(duel_env, json.dumps(situation))  # the unedited state loads
    data = copy.deepcopy(situation)
    edit(data)
    with pytest.raises(tcgjax.SerializationError) as info:
        tcgjax.from_json(duel_env, json.dumps(data))
    message = str(info.value)
    assert message.startswith(field), f"{message!r} does not start with {field!r}"
    assert "unreachable state" in message and fragment in message, message


def test_finished_games_of_each_kind_are_valid(duel_env):
    step = jax.jit(duel_env.step)
    attack0, end_turn = ACTIONS.encode("attack", 0), ACTIONS.encode("end_turn")
    won = step(build_state(duel_env, [{"board": ["wolf"]}, {"life": 1}]), attack0, KEY)
    assert int(won.game.winner) == 0 and bool(won.terminated)
    duel_env.validate(won)
    decked = step(build_state(duel_env, [{"deck": ["spark"]}, {"deck": []}]), end_turn, KEY)
    assert int(decked.game.winner) == 0 and bool(decked.terminated)
    duel_env.validate(decked)


@pytest.mark.parametrize(
    ("rewards", "fragment"),
    [
        ([float("nan"), 0.0], "is not finite"),
        ([float("inf"), 0.0], "is not finite"),
        ([0.0, 0.0, 0.0], "not one reward per player"),
        ([0.0], "not one reward per player"),
    ],
)
def test_validate_refuses_rewards_not_finite_or_not_one_per_player(duel_env, rewards, fragment):
    state = build_state(duel_env, [{"board": ["wolf"]}, {}])
    duel_env.validate(state)  # the unedited state is valid
    bad = state.replace(rewards=jnp.asarray(rewards, jnp.float32))
    with pytest.raises(tcgjax.InvalidStateError, match=fragment) as info:
        duel_env.validate(bad)
    assert info.value.field == "env.rewards"


def test_validate_refuses_truncation_anywhere_but_at_max_steps_of_a_game_going_on(duel_env):
    state = build_state(duel_env, [{"board": ["wolf"]}, {"life": 1}])
    at_limit = state.replace(step_count=jnp.int32(duel_env.max_steps), truncated=jnp.bool_(True))
    duel_env.validate(at_limit)  # truncated at max_steps, the game going on: valid
    won = jax.jit(duel_env.step)(state, ACTIONS.encode("attack", 0), KEY)
    assert bool(won.terminated)
    cases = [
        (state.replace(truncated=jnp.bool_(True)), "true at step 0"),  # before max_steps
        (won.replace(truncated=jnp.bool_(True)), "terminated True"),  # after the game ended
        (at_limit.replace(truncated=jnp.bool_(False)), "past max_steps"),
    ]
    for bad, fragment in cases:
        with pytest.raises(tcgjax.InvalidStateError, match=fragment) as info:
            duel_env.validate(bad)
        assert info.value.field == "env.truncated"


@pytest.mark.parametrize("reason", [-1, 4])
def test_validate_refuses_an_end_reason_outside_the_known_ones(duel_env, reason):
    """``END_REASONS`` has 4 entries (0 = none): -1 and 4 are no reason, even beside a winner."""
    state = build_state(duel_env, [{"board": ["wolf"]}, {"life": 0}])
    game = state.game.replace(winner=jnp.int8(0), end_reason=jnp.int8(1))
    won = state.replace(
        game=game, terminated=jnp.bool_(True), rewards=jnp.asarray([1.0, -1.0], jnp.float32)
    )
    duel_env.validate(won)  # a life win with the loser at 0: valid
    bad = won.replace(game=game.replace(end_reason=jnp.int8(reason)))
    with pytest.raises(tcgjax.InvalidStateError, match="does not agree") as info:
        duel_env.validate(bad)
    assert info.value.field == "game.end_reason"


def test_validate_names_the_first_card_whose_owner_is_not_as_dealt(duel_env):
    """Instances 3 and 15 (card_004, card_016) trade owners: the error names the first."""
    state = build_state(duel_env, [{"board": ["wolf"]}, {}])
    board = state.game.board
    board = board.replace(owner=board.owner.at[3].set(1).at[15].set(0))
    with pytest.raises(tcgjax.InvalidStateError, match="not as dealt") as info:
        duel_env.validate(state.replace(game=state.game.replace(board=board)))
    assert info.value.field == "cards.card_004.ownerId"


def test_validate_names_a_card_without_a_definition_by_its_number(duel_env):
    """Definition 0 is no card (its registry name is empty): the decklist error shows ``<0>``."""
    state = build_state(duel_env, [{"board": ["wolf"]}, {}])
    board = state.game.board
    board = board.replace(definition=board.definition.at[0].set(0))
    with pytest.raises(tcgjax.InvalidStateError, match="not the decklist") as info:
        duel_env.validate(state.replace(game=state.game.replace(board=board)))
    assert "'<0>'" in str(info.value) and info.value.field == "players.player1"
