"""The Digimon picture (``env.render(state, viewer)``): both players' areas as on the table.

Per player, from the middle of the table outwards: the breeding area and the battle area (each
Digimon or Tamer as its stack, digivolution cards under the top card, with its DP as the rules
compute it; a suspended one turned sideways), then the security stack, deck, Digi-Egg deck and
trash (piles: their top card when the viewer may see it, and their counts) and the hand. Cards are
filled with their colour; hovering one shows its costs and text. The header shows the turn, the
phase, the memory gauge (-10..10, from player 1's side in the drawing), an attack in progress and
a pending selection. A viewer sees their own hand and nothing hidden of the opponent (the core
visibility module decides, as for the observation).
"""

from __future__ import annotations

import jax
import numpy as np

from tcgjax.core import render
from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon import rules as R
from tcgjax.games.digimon.cards import COLORS, KINDS

__all__ = ["picture"]


def picture(env, state, viewer: int | None) -> render.Picture:
    """The picture of one game (``state`` with NumPy leaves), ``viewer`` None or 0/1."""
    game, layout = state.game, env.board_layout
    board = game.board
    perm = jax.tree.map(np.asarray, render.host_jit(env.rules.permanents)(game))

    def label(card: int) -> render.CardFace:
        row = render.card_definition(layout, board, card)
        kind = KINDS[row["kind"]]
        colors = [c for i, c in enumerate(COLORS) if row["colors"] >> i & 1]
        stats = [layout.cards.ids[int(board.definition[card])], "/".join(colors)]
        if kind in ("digimon", "digi_egg"):
            stats.append(f"Lv{row['level']}")
        if kind == "digimon":
            stats.append(f"{row['dp']} DP")
        elif kind != "digi_egg":
            stats.append(kind)
        return render.CardFace(
            row["name"],
            " ".join(stats),
            color=CARD_COLORS[colors[0]] if colors else "#ffffff",
            tip=_card_tip(row, kind, " ".join(stats)),
        )

    def slot_note(p: int, slot: int) -> str:
        if perm.size[p, slot] == 0:
            return ""
        top = int(perm.top[p, slot])
        kind = KINDS[render.card_definition(layout, board, top)["kind"]]
        parts = [f"{int(perm.dp[p, slot])} DP"] if kind == "digimon" else []
        if game.suspended[p, slot]:
            parts.append("suspended")
        return ", ".join(parts)

    def side(p: int) -> render.SideView:
        zone = {name: int(R.zone_of(name, p)) for name in R.PLAYER_ZONES}
        battle = tuple(
            render.ZoneView(
                int(R.SLOT_ZONES[p, s]),
                f"slot {s + 1}",
                "stack",
                slot_note(p, s),
                hide_empty=True,
                turned=bool(game.suspended[p, s]),  # suspended: turned sideways, as on the table
            )
            for s in range(R.BREEDING_SLOT)
        )
        breeding = render.ZoneView(
            zone["breeding"], "breeding", "stack", slot_note(p, R.BREEDING_SLOT)
        )
        piles = (
            render.ZoneView(zone["security"], "security", "pile"),
            render.ZoneView(zone["deck"], "deck", "pile"),
            render.ZoneView(zone["eggs"], "Digi-Eggs", "pile"),
            render.ZoneView(zone["trash"], "trash", "pile"),
            render.ZoneView(zone["hand"], "hand"),
        )
        # Two rows, for a landscape picture: the battle area with the breeding area at its
        # left, then the piles and the hand.
        return render.SideView(p, rows=((breeding, *battle), piles))

    header = [render.status_line(state, int(game.winner), R.END_REASONS[int(game.end_reason)])]
    active = int(board.active_player)
    memory = int(game.memory)  # + is the active player's side
    header.append(f"memory: {_gauge(memory if active == 0 else -memory)}")
    if int(game.attacker) >= 0:
        target = int(game.attack_target)
        aim = "the player" if target == R.BREEDING_SLOT else f"slot {target + 1}"
        stage = R.ATTACK_STAGES[int(game.attack_stage)] if int(game.attack_stage) >= 0 else ""
        header.append(
            f"attack: player {active + 1}'s slot {int(game.attacker) + 1} -> {aim} ({stage}), "
            f"{int(game.checks_left)} security check(s) left"
        )
    if int(game.selection.card) >= 0 and int(game.selection.stage) == A.CHOICE_MULLIGAN:
        # The record points at a card of the decider's hand only to say who decides (rules,
        # _ask_mulligan): name the decision, never that card (hidden from the other player).
        decider = int(board.owner[int(game.selection.card)])
        header.append(f"mulligan: player {decider + 1} keeps the opening hand or redraws 5")
    else:
        header += render.selection_lines(layout, board, game.selection)
    phase = layout.phases[int(board.phase)]
    return render.card_board_picture(
        layout,
        board,
        viewer,
        title=f"Digimon: turn {int(board.turn_number)}, {phase} phase",
        header=header,
        sides=[side(0), side(1)],
        card_label=label,
        shared=(
            render.ZoneView(layout.zones.index(("revealed", None)), "revealed", hide_empty=True),
            render.ZoneView(
                layout.zones.index(("processing", None)), "processing", hide_empty=True
            ),
        ),
    )


#: The fill of a card of each colour (its first colour where it has two).
CARD_COLORS = {
    "red": "#f8d3cd",
    "blue": "#d2e4f6",
    "yellow": "#f8efbf",
    "green": "#d3efd6",
    "black": "#d6d6d6",
    "purple": "#e5d6f1",
    "white": "#ffffff",
}


def _card_tip(row, kind: str, stats: str) -> str:
    """The hover text of a card: name, numbers, costs and its text (our paraphrase)."""
    parts = [f"{row['name']} ({stats})"]
    if row["play_cost"] >= 0:
        parts.append(
            f"play cost {row['play_cost']}" if kind != "option" else f"use cost {row['play_cost']}"
        )
    for digivolve in row["digivolve"]:
        color = COLORS[digivolve["color"]] if 0 <= digivolve["color"] < len(COLORS) else "any"
        parts.append(f"digivolve from {color} Lv{digivolve['level']}: cost {digivolve['cost']}")
    if row["text"]:
        parts.append(row["text"])
    return "\n".join(parts)


def _gauge(memory: int) -> str:
    """The gauge as text from player 1's side: ``P2 10 ... 0 ... 10 P1`` with the marker."""
    cells = ["·"] * 21
    cells[10 + memory] = "●"
    owner = "player 1" if memory > 0 else "player 2" if memory < 0 else "neither player"
    return f"P2 |{''.join(cells)}| P1  ({abs(memory)} on {owner}'s side)"
