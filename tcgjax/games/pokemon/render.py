"""The Pokémon picture (``env.render(state, viewer)``): both players' areas as on the table.

Per player, from the middle of the table outwards: the Active Pokémon, then the Bench (each
Pokémon as its stack: the Pokémon it evolved from and the Energy and Tool attached under the top
card, with its HP left of its maximum as the rules compute it, and its Special Conditions), then
the Prize cards, deck, discard pile and the cards being looked at, then the hand. The header
shows the turn, the phase, each player's Prize cards left and a pending choice. A viewer sees
their own hand and nothing hidden of the opponent (the core visibility module decides, as for
the observation); Prize cards stay face down for both.
"""

from __future__ import annotations

import jax
import numpy as np

from tcgjax.core import render
from tcgjax.games.pokemon import rules as R
from tcgjax.games.pokemon.cards import KINDS, STAGES, TYPES

__all__ = ["picture"]


def picture(env, state, viewer: int | None) -> render.Picture:
    """The picture of one game (``state`` with NumPy leaves), ``viewer`` None or 0/1."""
    game, layout = state.game, env.board_layout
    board = game.board
    slots = jax.tree.map(np.asarray, render.host_jit(env.rules.slot_view)(game))

    def label(card: int) -> tuple[str, str]:
        row = render.card_definition(layout, board, card)
        kind = KINDS[row["kind"]]
        if kind == "pokemon":
            kind_text = f"{STAGES[row['stage']]} {TYPES[row['type'] - 1]} {row['hp']} HP"
        else:
            kind_text = kind.replace("_", " ")
        return row["name"], f"{layout.cards.ids[int(board.definition[card])]} {kind_text}"

    def slot_note(p: int, s: int) -> str:
        if not slots["occupied"][p, s]:
            return ""
        hp = int(slots["hp"][p, s])
        parts = [f"HP {max(hp - int(game.damage[p, s]), 0)}/{hp}"]
        if s == 0:
            rotated = R.ROTATED[int(game.rotated[p])]
            parts += [rotated] if rotated != "none" else []
            parts += ["poisoned"] * bool(game.poisoned[p]) + ["burned"] * bool(game.burned[p])
        return ", ".join(parts)

    def side(p: int) -> render.SideView:
        zone = {name: int(R.zone_of(name, p)) for name in R.PLAYER_ZONES}
        lead = slots["card"][p]  # the Pokémon on top of each slot's stack (-1 empty)
        active = (
            render.ZoneView(zone["active"], "Active", "stack", slot_note(p, 0), lead=int(lead[0])),
        )
        bench = tuple(
            render.ZoneView(zone[name], f"Bench {s}", "stack", slot_note(p, s), lead=int(lead[s]))
            for s, name in enumerate(R.SLOT_ZONES)
            if s > 0
        )
        piles = (
            render.ZoneView(zone["prizes"], "Prize cards", "pile"),
            render.ZoneView(zone["deck"], "deck", "pile"),
            render.ZoneView(zone["discard"], "discard", "pile"),
            render.ZoneView(zone["looking"], "looking at", hide_empty=True),
        )
        hand = (render.ZoneView(zone["hand"], "hand"),)
        prizes = int(np.sum(board.zone == zone["prizes"]))
        return render.SideView(
            p, rows=(active, bench, piles, hand), summary=f"{prizes} Prize cards left"
        )

    header = [render.status_line(state, int(game.winner), R.END_REASONS[int(game.end_reason)])]
    header += render.selection_lines(layout, board, game.selection)
    phase = layout.phases[int(board.phase)]
    return render.card_board_picture(
        layout,
        board,
        viewer,
        title=f"Pokémon TCG: turn {int(board.turn_number)}, {phase.replace('_', ' ')}",
        header=header,
        sides=[side(0), side(1)],
        card_label=label,
        shared=(
            render.ZoneView(
                layout.zones.index(("processing", None)), "processing", hide_empty=True
            ),
        ),
    )
