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
