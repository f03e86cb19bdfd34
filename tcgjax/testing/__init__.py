"""Test helpers shipped with the library: the conformance harness every env must pass."""

from tcgjax.testing.api_test import (
    ApiTestReport,
    api_test,
    assert_card_conservation,
    assert_states_equal,
    round_trip_states,
)

__all__ = [
    "api_test",
    "ApiTestReport",
    "assert_card_conservation",
    "assert_states_equal",
    "round_trip_states",
]
