"""Effect conditions read from the board (issue #36, the starter decks ST-4 and ST-6): a Digimon's
level (``self_level_at_least``: ST4-01 Motimon), the controller's trash size
(``own_trash_at_least``: ST6-11 WereGarurumon) and whether this Digimon's attack aims at an
opposing Digimon (``attacking_a_digimon``: ST4-04 Palmon, ST4-06 Togemon). Each on both sides of
its edge, in a continuous row (the DP the rules derive) and in a row that resolves (the
interpreter's check when the row comes up), from explicit situations."""

import jax
import numpy as np
import pytest
from digimon_testlib import digimon, make_rules, other, step_ok

from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon.scenario import build_state

R2 = [{"color": "red", "level": 2, "cost": 0}]
R3 = [{"color": "red", "level": 3, "cost": 2}]
R4 = [{"color": "red", "level": 4, "cost": 3}]
R5 = [{"color": "red", "level": 5, "cost": 3}]
PLAYER = A.TARGET_PLAYER


def inherited(**kw):
    return {"where": "inherited", **kw}


ENTRIES = [
    # Motimon-like egg: inherited [Your Turn] +1000 DP while this Digimon is level 6 or higher.
    other("EGG-LV6", "digi_egg",
          effects=[inherited(trigger="continuous", window="your_turn",
                             condition="self_level_at_least", condition_value=6, op="dp_mod",
                             amount=1000)]),
    digimon("LV4", 4, 5000, digivolve=R3),
    digimon("LV5", 5, 7000, digivolve=R4),
    digimon("LV6", 6, 9000, digivolve=R5),
    # WereGarurumon-like: inherited [Your Turn] +2000 DP while your trash holds 5 or more cards.
    digimon("TRASH5", 4, 4000, digivolve=R3,
            effects=[inherited(trigger="continuous", window="your_turn",
                               condition="own_trash_at_least", condition_value=5, op="dp_mod",
                               amount=2000)]),
    # Palmon-like: inherited [When Attacking] +2000 DP for the turn if the attack was declared
    # against an opposing Digimon.
    digimon("AT-DIGI", 3, 3000, digivolve=R2,
            effects=[inherited(trigger="when_attacking", condition="attacking_a_digimon",
                               op="dp_mod", target="self", amount=2000, duration="this_turn")]),
    # The two board conditions on rows that resolve: [When Attacking] +1 memory if this Digimon is
    # level 5 or higher; +2 memory if your trash holds 3 or more cards.
    digimon("AT-MEM", 3, 3000, digivolve=R2,
            effects=[inherited(trigger="when_attacking", condition="self_level_at_least",
                               condition_value=5, op="memory", target="player", amount=1),
                     inherited(trigger="when_attacking", condition="own_trash_at_least",
                               condition_value=3, op="memory", target="player", amount=2)]),
    digimon("WALL3", 3, 1000, digivolve=R2),
]  # fmt: skip
MAIN = ["LV4", "LV5", "LV6", "TRASH5", "AT-DIGI", "AT-MEM", "WALL3"] * 4
EGGS = ["EGG-LV6"] * 4


@pytest.fixture(scope="module")
def rules():
    return make_rules(ENTRIES, MAIN, EGGS)


@pytest.fixture(scope="module")
def perm(rules):
    return jax.jit(rules.permanents)


def situation(rules, me, opponent, *, active=0, **kw):
    return build_state(rules, [me, opponent], active=active, memory=kw.pop("memory", 3), **kw)


def dp(perm, state, player=0, slot=0) -> int:
    return int(np.asarray(perm(state).dp)[player, slot])


@pytest.mark.parametrize(
    "stack, expected",
    [
        (["EGG-LV6", "AT-DIGI", "LV4", "LV5", "LV6"], 9000 + 1000),  # level 6: on its edge
        (["EGG-LV6", "AT-DIGI", "LV4", "LV5"], 7000),  # level 5: one below
    ],
    ids=["level 6", "level 5"],
)
def test_self_level_at_least_reads_the_top_card_s_level(rules, perm, stack, expected):
    assert dp(perm, situation(rules, {"field": [stack]}, {})) == expected
    # [Your Turn]: on the opponent's turn the row is out of its window at any level.
    on_theirs = situation(rules, {"field": [stack]}, {}, active=1, turn=3)
    assert dp(perm, on_theirs) == (9000 if stack[-1] == "LV6" else 7000)


@pytest.mark.parametrize(
    "mine, theirs, expected",
    [
        (5, 0, 5000 + 2000),  # five cards in the controller's trash: on the edge
        (4, 0, 5000),  # four: one below
        (4, 6, 5000),  # the opponent's trash does not count
    ],
    ids=["own trash 5", "own trash 4", "opponent's trash"],
)
def test_own_trash_at_least_counts_the_controller_s_trash(rules, perm, mine, theirs, expected):
    me = {"field": [["EGG-LV6", "TRASH5", "LV4"]], "trash": ["WALL3"] * 4 + ["LV4"] * (mine - 4)}
    opponent = {"trash": ["WALL3"] * 4 + ["LV4"] * (theirs - 4)} if theirs else {}
    assert dp(perm, situation(rules, me, opponent)) == expected


def test_attacking_a_digimon_holds_for_an_attack_on_a_digimon_not_the_player(rules, apply, errors):
    """The [When Attacking] row resolves at the declaration: +2000 DP for the turn when the
    target is an opposing (suspended) Digimon, nothing when the attack is on the player."""
    perm = jax.jit(rules.permanents)
    me = {"field": [["EGG-LV6", "AT-DIGI", "LV4"]]}
    on_digimon = situation(rules, me, {"field": [["WALL3"]], "suspended": [0]})
    s, _ = step_ok(rules, apply, errors, on_digimon, A.encode("attack", 0, 0))
    assert int(s.attacker) == -1 and int(s.winner) == -1  # the battle is over: WALL3 deleted
    assert dp(perm, s) == 5000 + 2000  # the modifier lasts the turn
    on_player = situation(rules, me, {"security": ["WALL3"]})
    s, _ = step_ok(rules, apply, errors, on_player, A.encode("attack", 0, PLAYER))
    assert int(s.attacker) == -1 and dp(perm, s) == 5000


@pytest.mark.parametrize(
    "stack, trash, gained",
    [
        (["EGG-LV6", "AT-MEM", "LV4", "LV5"], 2, 1),  # level 5: +1; trash 2: no +2
        (["EGG-LV6", "AT-MEM", "LV4"], 3, 2),  # level 4: no +1; trash 3: +2
        (["EGG-LV6", "AT-MEM", "LV4", "LV5"], 3, 3),  # both
        (["EGG-LV6", "AT-MEM", "LV4"], 2, 0),  # neither
    ],
    ids=["level 5", "trash 3", "both", "neither"],
)
def test_level_and_trash_conditions_when_a_row_resolves(rules, apply, errors, stack, trash, gained):
    me = {"field": [stack], "trash": ["WALL3"] * trash}
    s = situation(rules, me, {"security": ["WALL3"]}, memory=3)
    s, _ = step_ok(rules, apply, errors, s, A.encode("attack", 0, PLAYER))
    assert int(s.attacker) == -1 and int(s.memory) == 3 + gained
