"""Declarative state invariants: each game's ``validate`` as one table (field → rule → message).

A game lists, in order, what every field of its rules state must satisfy for the state to be one
the rules can reach. Each :class:`Invariant` names the state leaves it covers (``fields``, dotted
paths into the state pytree: ``selection.left``, ``board.zone``), the JSON path an error reports
(``path``), the rule in words (``rule``, for the docs and failure messages), and a host-side
``check`` that returns the problem (a string) or ``None``. :meth:`InvariantTable.validate` runs
them in order and raises :class:`~tcgjax.core.errors.InvalidStateError` at the first one broken,
so an earlier invariant can guard a later one (indices in range before they are looked up).

Why a table: a new field of a state must come with its invariant. :meth:`InvariantTable.uncovered`
lists the state's leaves that no invariant names; every game's tests assert it is empty, so a
field added without a rule is a test failure rather than a silently unchecked fact.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import jax
import numpy as np

from tcgjax.core.errors import InvalidStateError

__all__ = ["Invariant", "InvariantTable", "leaf_paths", "pile_order_problem", "row", "scalar"]


@dataclasses.dataclass(frozen=True)
class Invariant:
    """One rule a reachable state satisfies.

    Attributes:
      fields: the state leaves the rule is about (dotted paths into the rules state, e.g.
        ``("selection.left",)``); together the table's invariants name every leaf.
      path: the JSON path of the fact an error reports (``game.selection.left``).
      rule: what must hold, in words.
      check: ``check(facts) -> str | tuple[str, str] | None``: the problem with ``facts`` (the
        game's host view of one state), or ``None`` when the rule holds. A rule over many
        instances (every card, every zone) may return ``(path, problem)`` to name the instance
        (``cards.card_007.zoneId``); ``path`` is then the pattern (``cards.card_NNN.zoneId``).
    """

    fields: tuple[str, ...]
    path: str
    rule: str
    check: Callable[[Any], str | tuple[str, str] | None]


def leaf_paths(state: Any) -> list[str]:
    """Dotted paths of every leaf of a state pytree of dataclasses (``board.zone``,
    ``selection.left``), in the pytree's order."""
    paths = []
    for keys, _ in jax.tree_util.tree_flatten_with_path(state)[0]:
        parts = []
        for key in keys:
            name = getattr(key, "name", None)
            if name is None:
                name = str(getattr(key, "key", getattr(key, "idx", key)))
            parts.append(str(name))
        paths.append(".".join(parts))
    return paths


class InvariantTable:
    """An ordered table of :class:`Invariant` rows: a game's ``validate``.

    Args:
      invariants: the rows, in the order they are checked.
      exempt: leaves no invariant needs to name, each with the reason (e.g. a field the rules
        never read), so that :meth:`uncovered` still accounts for every leaf.
    """

    def __init__(self, invariants: Sequence[Invariant], exempt: dict[str, str] | None = None):
        self.invariants = tuple(invariants)
        self.exempt = dict(exempt or {})
        paths = [row.path for row in self.invariants]
        if len(set(zip(paths, (row.rule for row in self.invariants), strict=True))) != len(paths):
            raise ValueError("two invariants with the same path and rule")

    def validate(self, facts: Any) -> None:
        """Raise ``InvalidStateError(path, problem)`` at the first invariant ``facts`` breaks."""
        for row in self.invariants:
            problem = row.check(facts)
            if problem is not None:
                path, problem = problem if isinstance(problem, tuple) else (row.path, problem)
                raise InvalidStateError(path, problem)

    def broken(self, facts: Any) -> list[Invariant]:
        """Every invariant ``facts`` breaks (each checked on its own; a check that raises on
        facts an earlier row refuses counts as broken). For tests: a state built to break one
        rule breaks exactly that one."""
        out = []
        for row in self.invariants:
            try:
                problem = row.check(facts)
            except Exception:  # noqa: BLE001 — a guarded check meeting unguarded facts
                problem = "the check could not be evaluated"
            if problem is not None:
                out.append(row)
        return out

    def covered(self) -> set[str]:
        """The leaves the table names (its invariants' fields and the exempt ones)."""
        return {f for row in self.invariants for f in row.fields} | set(self.exempt)

    def uncovered(self, state: Any) -> list[str]:
        """The leaves of ``state`` no invariant names (a new field without a rule)."""
        names = self.covered()
        return [p for p in leaf_paths(state) if p not in names]

    def rows(self, path: str) -> list[Invariant]:
        """The invariants reporting ``path``."""
        return [row for row in self.invariants if row.path == path]

    def __iter__(self) -> Iterable[Invariant]:
        return iter(self.invariants)

    def __len__(self) -> int:
        return len(self.invariants)


def row(fields: str, path: str, rule: str, check: Callable[[Any], Any]) -> Invariant:
    """An :class:`Invariant` whose ``fields`` are given as one space-separated string."""
    return Invariant(tuple(fields.split()), path, rule, check)


def scalar(value: int, ok: Callable[[int], bool], problem: Callable[[int], str]) -> str | None:
    """``None`` when ``ok(value)``, else ``problem(value)``: a one-value check in a table row."""
    return None if ok(value) else problem(value)


def pile_order_problem(layout: Any, board: Any) -> tuple[str, str] | None:
    """``(zones.<zone id>, problem)`` for the first zone of ``board`` (host numpy leaves) whose
    cards' positions are not exactly ``0..n-1``, else ``None``: every game's pile-order rule."""
    for z in range(layout.num_zones):
        positions = np.sort(board.position[board.zone == z].astype(int))
        if not np.array_equal(positions, np.arange(positions.size)):
            return (
                f"zones.{layout.zone_id(z)}",
                f"positions {positions.tolist()} are not 0..{positions.size - 1}",
            )
    return None
