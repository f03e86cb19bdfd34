"""The core error codes: every named constant is the code of its own entry in the table, so a code
found in ``State.error`` is explained by the rule that set it (mutation testing showed that no test
pinned the constants: changing one silently renamed the errors it reports)."""

import pytest

from tcgjax.core import errors

# Every integer constant of the module except the first game code: the core codes themselves.
CONSTANTS = tuple(
    name
    for name, value in vars(errors).items()
    if name.isupper() and type(value) is int and name != "FIRST_GAME_CODE"
)


@pytest.mark.parametrize("constant", CONSTANTS)
def test_each_core_code_names_its_own_rule(constant):
    codes = errors.ErrorCodes()
    value = getattr(errors, constant)
    assert codes.name(value) == constant.lower()
    assert codes.code(constant.lower()) == value


def test_core_codes_are_distinct_and_below_the_game_codes():
    values = [getattr(errors, c) for c in CONSTANTS]
    assert len(set(values)) == len(values)
    assert max(values) < errors.FIRST_GAME_CODE
    assert len(errors.CORE_ERRORS) == len(CONSTANTS)


def test_game_codes_start_at_the_documented_stable_value():
    # Codes are stored in JSON states and replays, so the first game code is part of the format:
    # the core reserves 0..31 and a game's first rule is code 32, its second 33.
    codes = errors.ErrorCodes(
        [errors.RuleError("first_rule", "m1"), errors.RuleError("second", "m2")]
    )
    assert errors.FIRST_GAME_CODE == 32
    assert codes.code("first_rule") == 32 and codes.code("second") == 33
    assert codes.name(33) == "second" and codes.message(32) == "m1"


def test_unknown_names_and_codes_are_explained_not_raised_raw():
    codes = errors.ErrorCodes()
    with pytest.raises(errors.ConfigError, match="unknown error code name 'no_such_rule'"):
        codes.code("no_such_rule")
    assert codes.message(errors.ZONE_FULL) == "the destination zone is at its max_size"
    assert codes.message(999) == "unknown error code 999"
    assert codes.name(999) == "unknown_999"


def test_duplicate_game_rule_names_are_refused():
    with pytest.raises(errors.ConfigError, match="duplicate error code names"):
        errors.ErrorCodes([errors.RuleError("zone_full", "a second zone_full")])


def test_rule_errors_are_immutable_and_illegal_action_details_are_keywords():
    import dataclasses

    err = errors.RuleError("a", "b")
    with pytest.raises(dataclasses.FrozenInstanceError):
        err.name = "c"
    with pytest.raises(TypeError):
        errors.IllegalActionError("message", 3)
    raised = errors.IllegalActionError("message", code=3, rule="action_not_legal")
    assert (raised.code, raised.rule, str(raised)) == (3, "action_not_legal", "message")
