"""The Pokémon picture (``env.render(state, viewer)``): both players' areas as on the table.

Per player, from the middle of the table outwards: the Active Pokémon and the Bench (each Pokémon
as its stack: the Pokémon it evolved from under it; its attached Energy as badges of their types
and a Tool as a T under the stack; its damage on the card; its HP left of its maximum as the rules
compute it, and its Special Conditions), then the Prize cards, deck, discard pile, the cards being
looked at and the hand. Cards are filled with their type (Trainers by kind); hovering one shows
its attacks with their costs and its text. The header shows the turn, the phase, each player's
Prize cards left and a pending choice. A viewer sees their own hand and nothing hidden of the
opponent (the core visibility module decides, as for the observation); Prize cards stay face down
for both.
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

    def label(card: int) -> render.CardFace:
        row = render.card_definition(layout, board, card)
        kind = KINDS[row["kind"]]
        number = layout.cards.ids[int(board.definition[card])]
        if kind == "pokemon":
            kind_text = f"{STAGES[row['stage']]} {TYPES[row['type'] - 1]} {row['hp']} HP"
            color = TYPE_COLORS[TYPES[row["type"] - 1]][0]
        else:
            kind_text = kind.replace("_", " ")
            provided = _provided(row)
            color = TYPE_COLORS[provided[0]][0] if provided else TRAINER_COLORS.get(kind, "#fff")
        return render.CardFace(
            row["name"], f"{number} {kind_text}", color=color, tip=_card_tip(row, kind, number)
        )

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

    def slot_view(p: int, s: int, zone: int, label: str) -> render.ZoneView:
        cards = np.flatnonzero(board.zone == zone)
        cards = cards[np.argsort(board.position[cards], kind="stable")]
        kinds = [KINDS[render.card_definition(layout, board, int(c))["kind"]] for c in cards]
        # Energy and Tools ride on the Pokémon: drawn as badges under it, not as cards.
        attached = tuple(int(c) for c, k in zip(cards, kinds, strict=True) if k != "pokemon")
        badges = tuple(_badge(render.card_definition(layout, board, c)) for c in attached)
        damage = int(game.damage[p, s])
        return render.ZoneView(
            zone,
            label,
            "stack",
            slot_note(p, s),
            lead=int(slots["card"][p, s]),
            drawn_as_badges=attached,
            badges=badges,
            counter=f"{damage}" if damage else "",  # damage counters, 10 each
        )

    def side(p: int) -> render.SideView:
        zone = {name: int(R.zone_of(name, p)) for name in R.PLAYER_ZONES}
        active = slot_view(p, 0, zone["active"], "Active")
        bench = tuple(
            slot_view(p, s, zone[name], f"Bench {s}")
            for s, name in enumerate(R.SLOT_ZONES)
            if s > 0
        )
        piles = (
            render.ZoneView(zone["prizes"], "Prize cards", "pile"),
            render.ZoneView(zone["deck"], "deck", "pile"),
            render.ZoneView(zone["discard"], "discard", "pile"),
            render.ZoneView(zone["looking"], "looking at", hide_empty=True),
            render.ZoneView(zone["hand"], "hand"),
        )
        prizes = int(np.sum(board.zone == zone["prizes"]))
        # Two rows, for a landscape picture: the Active Pokémon and the Bench, then the piles
        # and the hand.
        return render.SideView(
            p, rows=((active, *bench), piles), summary=f"{prizes} Prize cards left"
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
            render.ZoneView(layout.zones.index(("stadium", None)), "Stadium", hide_empty=True),
        ),
    )


#: Per type: a card's fill, and an Energy badge's colour, letter and letter colour.
TYPE_COLORS = {
    "grass": ("#d7eec9", "#43a047", "G", "#fff"),
    "fire": ("#f8d2c6", "#e0533b", "R", "#fff"),
    "water": ("#cfe2f6", "#3b82c4", "W", "#fff"),
    "lightning": ("#f9efb9", "#f2c200", "L", "#222"),
    "psychic": ("#ecd4ee", "#9b59b6", "P", "#fff"),
    "fighting": ("#ebdac6", "#b5703a", "F", "#fff"),
    "darkness": ("#cfd3d8", "#37474f", "D", "#fff"),
    "metal": ("#e0e4e8", "#8a97a3", "M", "#fff"),
    "fairy": ("#f7d9ea", "#e07bb5", "Y", "#fff"),
    "dragon": ("#ece3b6", "#a8902a", "N", "#fff"),
    "colorless": ("#f3f3ee", "#e6e6e0", "C", "#222"),
}
#: The fill of each Trainer kind.
TRAINER_COLORS = {
    "item": "#e9edf7",
    "supporter": "#f6e8d9",
    "stadium": "#e3f1e3",
    "tool": "#ece6f5",
}


def _provided(row) -> list[str]:
    """The types an Energy card provides, one entry per unit (Double Turbo: two Colorless)."""
    return [TYPES[t] for t, units in enumerate(row["provides"]) for _ in range(int(units))]


def _badge(row) -> render.Badge:
    """An attached card as a badge: an Energy as the letter of its type on its colour (a
    special Energy: one letter per unit it provides), a Tool as a T."""
    provided = _provided(row)
    if not provided:  # a Pokémon Tool
        return render.Badge("T", "#6d5a96", tip=row["name"])
    _, fill, letter, ink = TYPE_COLORS[provided[0]]
    return render.Badge(letter * min(len(provided), 2), fill, tip=row["name"], ink=ink)


def _card_tip(row, kind: str, number: str) -> str:
    """The hover text of a card: its numbers, attacks with their costs, and its text (our
    paraphrase)."""
    parts = [f"{row['name']} ({number})"]
    if kind == "pokemon":
        parts.append(
            f"{STAGES[row['stage']]} {TYPES[row['type'] - 1]} Pokémon, {row['hp']} HP, "
            f"retreat {row['retreat']}"
        )
        for attack in row["attacks"]:
            cost = "".join(TYPE_COLORS[TYPES[t]][2] * int(n) for t, n in enumerate(attack["cost"]))
            damage = f" {attack['damage']}" if attack["damage"] else ""
            parts.append(f"[{cost or '-'}] {attack['name']}{damage}")
    if row["text"]:
        parts.append(row["text"])
    return "\n".join(parts)
