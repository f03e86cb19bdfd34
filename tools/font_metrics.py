"""Writes ``tcgjax/core/font_metrics.py``: the advance widths of DejaVu Sans (regular and bold),
the font the pictures name first, for the characters the pictures draw.

The pictures lay their text out with these widths (no font library at run time): a card's name
wraps or shrinks to fit its card, and a test measures every text box of the shipped pictures
against its card. Where DejaVu Sans is missing the SVG falls back to Arial or Helvetica, which
are narrower, so text laid out for DejaVu still fits. Run after adding characters::

    python tools/font_metrics.py
"""

from __future__ import annotations

import json
import os

import matplotlib
from matplotlib import ft2font

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tcgjax", "core", "font_metrics.py")
FONTS = {"normal": "DejaVuSans.ttf", "bold": "DejaVuSans-Bold.ttf"}
# Printable ASCII and the few other characters card names and pictures use.
CHARS = "".join(chr(c) for c in range(32, 127)) + "éÉèàü·●…→×—–’↻⚡"


def advances(path: str) -> tuple[dict[str, float], float, float]:
    font = ft2font.FT2Font(path)
    em = font.units_per_EM
    out = {}
    for char in CHARS:
        if font.get_char_index(ord(char)) == 0:
            continue  # not in the font: measured as the widest character
        glyph = font.load_char(ord(char), flags=ft2font.LoadFlags.NO_SCALE)
        out[char] = round(glyph.horiAdvance / em, 4)
    return out, font.ascender / em, -font.descender / em


def _key(char: str) -> str:
    """The character as a Python literal in ruff's quote style."""
    return "'\"'" if char == '"' else json.dumps(char, ensure_ascii=False)


def main() -> None:
    folder = os.path.join(matplotlib.get_data_path(), "fonts", "ttf")
    tables, ascent, descent = {}, 0.0, 0.0
    for weight, name in FONTS.items():
        tables[weight], ascent, descent = advances(os.path.join(folder, name))
    lines = [
        '"""Advance widths of DejaVu Sans in ems (written by ``tools/font_metrics.py``; do not edit).',
        "",
        "``ADVANCE[weight][char]``: ``weight`` ``normal`` or ``bold``; a character not listed is",
        "measured as :data:`WIDEST` (too wide is safe: text laid out with it still fits).",
        '"""',
        "",
        f"ASCENT = {ascent:.4f}",
        f"DESCENT = {descent:.4f}",
        "ADVANCE = {",
    ]
    for weight, table in tables.items():
        lines.append(f'    "{weight}": {{')
        lines += [f"        {_key(char)}: {width}," for char, width in table.items()]
        lines.append("    },")
    lines.append("}")
    widest = max(max(t.values()) for t in tables.values())
    lines.append(f"WIDEST = {widest}")
    with open(OUT, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
