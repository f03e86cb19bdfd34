"""The shipped ST-1 to ST-8 card database (with the BT-1 reprints of ST-7 and ST-8) and starter
decks: every card's printed facts (a golden table written out here), every card's effect rows, the
deck files and their validation."""

import pytest
from digimon_testlib import digimon, other

import tcgjax
from tcgjax.games.digimon import cards as C
from tcgjax.games.digimon.decks import SHIPPED_DECKS, load_deck

# (number, name, kind, color, level, play cost, DP, digivolve (color, level, cost), keywords)
STATS = [
    ("ST1-01", "Koromon", "digi_egg", "red", 2, -1, 0, (), ()),
    ("ST1-02", "Biyomon", "digimon", "red", 3, 2, 3000, (("red", 2, 0),), ()),
    ("ST1-03", "Agumon", "digimon", "red", 3, 3, 2000, (("red", 2, 0),), ()),
    ("ST1-04", "Dracomon", "digimon", "red", 3, 3, 4000, (("red", 2, 0),), ()),
    ("ST1-05", "Birdramon", "digimon", "red", 4, 4, 5000, (("red", 3, 2),), ()),
    ("ST1-06", "Coredramon", "digimon", "red", 4, 5, 6000, (("red", 3, 2),), ("blocker",)),
    ("ST1-07", "Greymon", "digimon", "red", 4, 5, 4000, (("red", 3, 2),), ()),
    ("ST1-08", "Garudamon", "digimon", "red", 5, 6, 7000, (("red", 4, 3),), ()),
    ("ST1-09", "MetalGreymon", "digimon", "red", 5, 7, 7000, (("red", 4, 3),), ()),
    ("ST1-10", "Phoenixmon", "digimon", "red", 6, 10, 12000, (("red", 5, 2),), ()),
    ("ST1-11", "WarGreymon", "digimon", "red", 6, 12, 12000, (("red", 5, 4),), ()),
    ("ST1-12", "Tai Kamiya", "tamer", "red", 0, 2, 0, (), ()),
    ("ST1-13", "Shadow Wing", "option", "red", 0, 1, 0, (), ()),
    ("ST1-14", "Starlight Explosion", "option", "red", 0, 2, 0, (), ()),
    ("ST1-15", "Giga Destroyer", "option", "red", 0, 6, 0, (), ()),
    ("ST1-16", "Gaia Force", "option", "red", 0, 8, 0, (), ()),
    ("ST2-01", "Tsunomon", "digi_egg", "blue", 2, -1, 0, (), ()),
    ("ST2-02", "Gomamon", "digimon", "blue", 3, 2, 3000, (("blue", 2, 0),), ()),
    ("ST2-03", "Gabumon", "digimon", "blue", 3, 3, 2000, (("blue", 2, 0),), ()),
    ("ST2-04", "Bearmon", "digimon", "blue", 3, 3, 4000, (("blue", 2, 0),), ()),
    ("ST2-05", "Ikkakumon", "digimon", "blue", 4, 4, 5000, (("blue", 3, 2),), ()),
    ("ST2-06", "Garurumon", "digimon", "blue", 4, 5, 4000, (("blue", 3, 2),), ()),
    ("ST2-07", "Grizzlymon", "digimon", "blue", 4, 5, 6000, (("blue", 3, 2),), ("blocker",)),
    ("ST2-08", "WereGarurumon", "digimon", "blue", 5, 7, 7000, (("blue", 4, 3),), ()),
    ("ST2-09", "Zudomon", "digimon", "blue", 5, 6, 7000, (("blue", 4, 3),), ()),
    ("ST2-10", "Plesiomon", "digimon", "blue", 6, 10, 12000, (("blue", 5, 2),), ()),
    ("ST2-11", "MetalGarurumon", "digimon", "blue", 6, 12, 11000, (("blue", 5, 4),), ()),
    ("ST2-12", "Matt Ishida", "tamer", "blue", 0, 2, 0, (), ()),
    ("ST2-13", "Hammer Spark", "option", "blue", 0, 0, 0, (), ()),
    ("ST2-14", "Sorrow Blue", "option", "blue", 0, 2, 0, (), ()),
    ("ST2-15", "Kaiser Nail", "option", "blue", 0, 4, 0, (), ()),
    ("ST2-16", "Cocytus Breath", "option", "blue", 0, 7, 0, (), ()),
    ("ST3-01", "Tokomon", "digi_egg", "yellow", 2, -1, 0, (), ()),
    ("ST3-02", "Salamon", "digimon", "yellow", 3, 2, 3000, (("yellow", 2, 0),), ()),
    ("ST3-03", "Tapirmon", "digimon", "yellow", 3, 3, 4000, (("yellow", 2, 0),), ()),
    ("ST3-04", "Patamon", "digimon", "yellow", 3, 3, 1000, (("yellow", 2, 0),), ()),
    ("ST3-05", "Angemon", "digimon", "yellow", 4, 5, 4000, (("yellow", 3, 2),), ()),
    ("ST3-06", "Gatomon", "digimon", "yellow", 4, 4, 5000, (("yellow", 3, 2),), ()),
    ("ST3-07", "Unimon", "digimon", "yellow", 4, 5, 6000, (("yellow", 3, 2),), ("blocker",)),
    ("ST3-08", "MagnaAngemon", "digimon", "yellow", 5, 7, 7000, (("yellow", 4, 3),), ()),
    ("ST3-09", "Angewomon", "digimon", "yellow", 5, 6, 7000, (("yellow", 4, 3),), ()),
    ("ST3-10", "Magnadramon", "digimon", "yellow", 6, 10, 12000, (("yellow", 5, 2),), ()),
    ("ST3-11", "Seraphimon", "digimon", "yellow", 6, 12, 10000, (("yellow", 5, 4),), ()),
    ("ST3-12", "T.K. Takaishi", "tamer", "yellow", 0, 2, 0, (), ()),
    ("ST3-13", "Heaven's Gate", "option", "yellow", 0, 1, 0, (), ()),
    ("ST3-14", "Heaven's Charm", "option", "yellow", 0, 2, 0, (), ()),
    ("ST3-15", "Holy Flame", "option", "yellow", 0, 2, 0, (), ()),
    ("ST3-16", "Seven Heavens", "option", "yellow", 0, 7, 0, (), ()),
    ("ST4-01", "Motimon", "digi_egg", "green", 2, -1, 0, (), ()),
    ("ST4-02", "Floramon", "digimon", "green", 3, 2, 4000, (("green", 2, 1),), ()),
    ("ST4-03", "Tentomon", "digimon", "green", 3, 3, 2000, (("green", 2, 0),), ()),
    ("ST4-04", "Palmon", "digimon", "green", 3, 3, 2000, (("green", 2, 0),), ()),
    ("ST4-05", "Kunemon", "digimon", "green", 3, 4, 5000, (("green", 2, 0),), ()),
    ("ST4-06", "Togemon", "digimon", "green", 4, 4, 4000, (("green", 3, 2),), ()),
    ("ST4-07", "Kuwagamon", "digimon", "green", 4, 5, 6000, (("green", 3, 2),), ()),
    ("ST4-08", "Kabuterimon", "digimon", "green", 4, 6, 5000, (("green", 3, 1),), ("blocker",)),
    ("ST4-09", "Okuwamon", "digimon", "green", 5, 6, 7000, (("green", 4, 2),), ()),
    ("ST4-10", "Lillymon", "digimon", "green", 5, 6, 7000, (("green", 4, 3),), ()),
    ("ST4-11", "MegaKabuterimon", "digimon", "green", 5, 7, 7000, (("green", 4, 3),), ()),
    ("ST4-12", "Rosemon", "digimon", "green", 6, 10, 11000, (("green", 5, 3),), ()),
    (
        "ST4-13",
        "HerculesKabuterimon",
        "digimon",
        "green",
        6,
        12,
        12000,
        (("green", 5, 4),),
        ("piercing",),
    ),
    ("ST4-14", "Izzy Izumi", "tamer", "green", 0, 2, 0, (), ()),
    ("ST4-15", "Needle Spray", "option", "green", 0, 2, 0, (), ()),
    ("ST4-16", "Electro Shocker", "option", "green", 0, 5, 0, (), ()),
    ("ST5-01", "Kapurimon", "digi_egg", "black", 2, -1, 0, (), ()),
    ("ST5-02", "Jazamon", "digimon", "black", 3, 2, 4000, (("black", 2, 1),), ()),
    ("ST5-03", "Agumon", "digimon", "black", 3, 3, 1000, (("black", 2, 0),), ("blocker",)),
    ("ST5-04", "ToyAgumon", "digimon", "black", 3, 3, 2000, (("black", 2, 0),), ()),
    ("ST5-05", "Commandramon", "digimon", "black", 3, 4, 5000, (("black", 2, 0),), ()),
    ("ST5-06", "Greymon", "digimon", "black", 4, 4, 4000, (("black", 3, 2),), ()),
    ("ST5-07", "Jazardmon", "digimon", "black", 4, 5, 6000, (("black", 3, 2),), ()),
    ("ST5-08", "DarkTyrannomon", "digimon", "black", 4, 6, 5000, (("black", 3, 1),), ("blocker",)),
    ("ST5-09", "MetalGreymon", "digimon", "black", 5, 6, 7000, (("black", 4, 3),), ()),
    ("ST5-10", "MetalTyrannomon", "digimon", "black", 5, 6, 9000, (("black", 4, 3),), ()),
    ("ST5-11", "Megadramon", "digimon", "black", 5, 7, 7000, (("black", 4, 3),), ()),
    ("ST5-12", "Machinedramon", "digimon", "black", 6, 10, 11000, (("black", 5, 3),), ()),
    ("ST5-13", "BlitzGreymon", "digimon", "black", 6, 12, 12000, (("black", 5, 4),), ()),
    ("ST5-14", "Tai Kamiya", "tamer", "black", 0, 2, 0, (), ()),
    ("ST5-15", "Laser Eye", "option", "black", 0, 4, 0, (), ()),
    ("ST5-16", "Dark Side Attack", "option", "black", 0, 5, 0, (), ()),
    ("ST6-01", "Pagumon", "digi_egg", "purple", 2, -1, 0, (), ()),
    ("ST6-02", "DemiDevimon", "digimon", "purple", 3, 2, 4000, (("purple", 2, 1),), ()),
    ("ST6-03", "Gabumon", "digimon", "purple", 3, 3, 2000, (("purple", 2, 0),), ()),
    ("ST6-04", "Dracmon", "digimon", "purple", 3, 3, 2000, (("purple", 2, 0),), ()),
    ("ST6-05", "Elecmon", "digimon", "purple", 3, 4, 5000, (("purple", 2, 0),), ()),
    ("ST6-06", "Garurumon", "digimon", "purple", 4, 4, 4000, (("purple", 3, 2),), ()),
    ("ST6-07", "Youkomon", "digimon", "purple", 4, 5, 6000, (("purple", 3, 2),), ()),
    ("ST6-08", "Devimon", "digimon", "purple", 4, 6, 5000, (("purple", 3, 1),), ("blocker",)),
    ("ST6-09", "Kyukimon", "digimon", "purple", 5, 6, 9000, (("purple", 4, 3),), ()),
    ("ST6-10", "SkullSatamon", "digimon", "purple", 5, 6, 7000, (("purple", 4, 3),), ()),
    ("ST6-11", "WereGarurumon", "digimon", "purple", 5, 7, 7000, (("purple", 4, 3),), ()),
    ("ST6-12", "VenomMyotismon", "digimon", "purple", 6, 10, 11000, (("purple", 5, 3),), ()),
    ("ST6-13", "CresGarurumon", "digimon", "purple", 6, 12, 12000, (("purple", 5, 4),), ()),
    ("ST6-14", "Matt Ishida", "tamer", "purple", 0, 2, 0, (), ()),
    ("ST6-15", "Death Claw", "option", "purple", 0, 1, 0, (), ()),
    ("ST6-16", "Nail Bone", "option", "purple", 0, 7, 0, (), ()),
    ("ST7-01", "Gigimon", "digi_egg", "red", 2, -1, 0, (), ()),
    ("ST7-02", "Agumon", "digimon", "red", 3, 3, 2000, (("red", 2, 0),), ()),
    ("ST7-03", "Guilmon", "digimon", "red", 3, 3, 2000, (("red", 2, 0),), ()),
    ("ST7-04", "Biyomon", "digimon", "red", 3, 4, 3000, (("red", 2, 0),), ("blocker",)),
    ("ST7-05", "Growlmon", "digimon", "red", 4, 4, 5000, (("red", 3, 2),), ()),
    ("ST7-06", "GeoGreymon", "digimon", "red", 4, 6, 5000, (("red", 3, 2),), ()),
    ("ST7-07", "RizeGreymon", "digimon", "red", 5, 7, 7000, (("red", 4, 3),), ()),
    ("ST7-08", "WarGrowlmon", "digimon", "red", 5, 8, 8000, (("red", 4, 3),), ()),
    ("ST7-09", "Gallantmon", "digimon", "red", 6, 11, 11000, (("red", 5, 3),), ()),
    ("ST7-10", "ShineGreymon", "digimon", "red", 6, 12, 12000, (("red", 5, 4),), ("piercing",)),
    ("ST7-11", "Lightning Joust", "option", "red", 0, 1, 0, (), ()),
    ("ST7-12", "Atomic Blaster", "option", "red", 0, 5, 0, (), ()),
    ("BT1-009", "Monodramon", "digimon", "red", 3, 2, 3000, (("red", 2, 0),), ()),
    ("BT1-019", "DarkTyrannomon", "digimon", "red", 4, 6, 6000, (("red", 3, 1),), ()),
    ("BT1-020", "Groundramon", "digimon", "red", 5, 5, 6000, (("red", 4, 2),), ()),
    ("ST8-01", "DemiVeemon", "digi_egg", "blue", 2, -1, 0, (), ()),
    ("ST8-02", "Gabumon", "digimon", "blue", 3, 3, 2000, (("blue", 2, 0),), ()),
    ("ST8-03", "Dracomon", "digimon", "blue", 3, 3, 2000, (("blue", 2, 0),), ()),
    ("ST8-04", "Veemon", "digimon", "blue", 3, 3, 2000, (("blue", 2, 0),), ()),
    ("ST8-05", "Veedramon", "digimon", "blue", 4, 4, 5000, (("blue", 3, 2),), ()),
    ("ST8-06", "Coredramon", "digimon", "blue", 4, 6, 5000, (("blue", 3, 2),), ()),
    ("ST8-07", "Wingdramon", "digimon", "blue", 5, 7, 7000, (("blue", 4, 3),), ("blocker",)),
    ("ST8-08", "AeroVeedramon", "digimon", "blue", 5, 7, 7000, (("blue", 4, 3),), ("jamming",)),
    ("ST8-09", "Slayerdramon", "digimon", "blue", 6, 11, 11000, (("blue", 5, 3),), ()),
    ("ST8-10", "UlforceVeedramon", "digimon", "blue", 6, 12, 12000, (("blue", 5, 4),), ()),
    ("ST8-11", "Victory Sword", "option", "blue", 0, 3, 0, (), ()),
    ("ST8-12", "V-Wing Blade", "option", "blue", 0, 6, 0, (), ()),
    ("BT1-028", "Elecmon", "digimon", "blue", 3, 2, 3000, (("blue", 2, 0),), ()),
    ("BT1-037", "Gorillamon", "digimon", "blue", 4, 6, 6000, (("blue", 3, 1),), ()),
    ("BT1-038", "Monzaemon", "digimon", "blue", 5, 5, 6000, (("blue", 4, 2),), ()),
]

# Each card's effect rows as (where, trigger, op, target, amount): the encoding of the reference's
# paraphrased effects (see cards/starter.yaml for every field).
EFFECTS = {
    "ST1-01": [("inherited", "continuous", "dp_mod", "self", 1000)],
    "ST1-03": [("inherited", "continuous", "dp_mod", "self", 1000)],
    "ST1-06": [("main", "when_attacking", "memory", "player", -2)],
    "ST1-07": [("inherited", "continuous", "security_attack_mod", "self", 1)],
    "ST1-08": [("main", "when_digivolving", "dp_mod", "choose_own_digimon", 3000)],
    "ST1-09": [("inherited", "when_blocked", "memory", "player", 3)],
    "ST1-11": [("main", "continuous", "security_attack_mod", "self", 1)],
    "ST1-12": [("main", "continuous", "dp_mod", "all_own_digimon", 1000),
               ("security", "security", "play_self", "self", 0)],
    "ST1-13": [("main", "main", "dp_mod", "choose_own_digimon", 3000),
               ("security", "security", "security_attack_mod", "all_own_digimon", 1)],
    "ST1-14": [("main", "main", "dp_mod", "own_security_digimon", 7000),
               ("security", "security", "dp_mod", "own_security_digimon", 7000)],
    "ST1-15": [("main", "main", "delete", "choose_opponent_digimon", 0),
               ("security", "security", "activate_main", "self", 0)],
    "ST1-16": [("main", "main", "delete", "choose_opponent_digimon", 0),
               ("security", "security", "activate_main", "self", 0)],
    "ST2-01": [("inherited", "continuous", "dp_mod", "self", 1000)],
    "ST2-03": [("inherited", "when_attacking", "trash_sources", "choose_opponent_digimon", 1)],
    "ST2-06": [("inherited", "when_attacking", "trash_sources", "choose_opponent_digimon", 1)],
    "ST2-07": [("main", "when_attacking", "memory", "player", -2)],
    "ST2-08": [("inherited", "continuous", "security_attack_mod", "self", 1)],
    "ST2-09": [("main", "when_digivolving", "trash_sources", "choose_opponent_digimon", 2)],
    "ST2-11": [("main", "when_attacking", "unsuspend", "self", 0)],
    "ST2-12": [("main", "start_of_your_turn", "memory", "player", 1),
               ("security", "security", "play_self", "self", 0)],
    "ST2-13": [("main", "main", "memory", "player", 1),
               ("security", "security", "memory", "player", 2)],
    "ST2-14": [("main", "main", "restrict", "choose_opponent_no_source_digimon", 0),
               ("security", "security", "restrict", "choose_opponent_no_source_digimon", 0)],
    "ST2-15": [("main", "main", "play_from_sources", "choose_own_digimon", 0),
               ("security", "security", "activate_main", "self", 0)],
    "ST2-16": [("main", "main", "bounce_to_hand", "choose_opponent_digimon", 0),
               ("security", "security", "activate_main", "self", 0)],
    "ST3-01": [("inherited", "opponent_deleted_at_zero_dp", "dp_mod", "self", 1000)],
    "ST3-04": [("inherited", "opponent_deleted_at_zero_dp", "memory", "player", 1)],
    "ST3-05": [("inherited", "when_attacking", "memory", "player", 1)],
    "ST3-07": [("main", "when_attacking", "memory", "player", -2)],
    "ST3-08": [("inherited", "when_attacking", "dp_mod", "choose_opponent_digimon", -1000)],
    "ST3-09": [("main", "when_digivolving", "recovery", "player", 1)],
    "ST3-11": [("main", "when_attacking", "dp_mod", "choose_opponent_digimon", -4000)],
    "ST3-12": [("main", "continuous", "dp_mod", "own_security_digimon", 2000),
               ("security", "security", "play_self", "self", 0)],
    "ST3-13": [("main", "main", "dp_mod", "choose_own_digimon", 3000),
               ("security", "security", "dp_mod", "all_own_digimon", 5000),
               ("security", "security", "dp_mod", "own_security_digimon", 5000),
               ("security", "security", "add_self_to_hand", "self", 0)],
    "ST3-14": [("main", "main", "dp_mod", "choose_opponent_digimon", -2000),
               ("security", "security", "add_self_to_hand", "self", 0)],
    "ST3-15": [("main", "main", "security_attack_mod", "choose_opponent_digimon", -3),
               ("security", "security", "security_attack_mod", "all_opponent_digimon", -1)],
    "ST3-16": [("main", "main", "dp_mod", "choose_opponent_digimon", -10000),
               ("security", "security", "activate_main", "self", 0)],
    "ST4-01": [("inherited", "continuous", "dp_mod", "self", 1000)],
    "ST4-03": [("main", "on_play", "reveal_add", "player", 1)],
    "ST4-04": [("inherited", "when_attacking", "dp_mod", "self", 2000)],
    "ST4-06": [("inherited", "when_attacking", "dp_mod", "self", 2000)],
    "ST4-08": [("main", "when_attacking", "memory", "player", -2)],
    "ST4-10": [("main", "when_digivolving", "reveal_add", "player", 5)],
    "ST4-11": [("inherited", "won_battle", "trash_security_top", "opponent", 1)],
    "ST4-12": [("main", "when_digivolving", "restrict", "choose_opponent_digimon", 0)],
    "ST4-13": [("main", "main", "suspend", "choose_opponent_digimon", 0)],
    "ST4-14": [("main", "opponent_digimon_suspended", "memory", "player", 1),
               ("security", "security", "play_self", "self", 0)],
    "ST4-15": [("main", "main", "suspend", "choose_opponent_digimon", 0),
               ("security", "security", "activate_main", "self", 0),
               ("security", "security", "add_self_to_hand", "self", 0)],
    "ST4-16": [("main", "main", "bounce_to_hand", "choose_opponent_suspended_digimon", 0),
               ("security", "security", "activate_main", "self", 0)],
    "ST5-01": [("inherited", "continuous", "dp_mod", "self", 1000)],
    "ST5-04": [("inherited", "end_of_opponents_turn", "draw", "player", 1)],
    "ST5-06": [("inherited", "end_of_opponents_turn", "draw", "player", 1)],
    "ST5-08": [("main", "when_attacking", "memory", "player", -2)],
    "ST5-09": [("main", "when_digivolving", "grant_keyword", "choose_own_digimon", 0)],
    "ST5-12": [("main", "when_digivolving", "grant_keyword", "choose_own_digimon", 0)],
    "ST5-13": [("main", "continuous", "security_attack_mod", "self", 1),
               ("main", "main", "dp_mod", "choose_own_digimon", 4000)],
    "ST5-14": [("main", "own_digimon_blocks", "unsuspend", "choose_own_digimon", 0),
               ("security", "security", "play_self", "self", 0)],
    "ST5-15": [("main", "main", "de_digivolve", "choose_opponent_digimon", 1),
               ("security", "security", "activate_main", "self", 0)],
    "ST5-16": [("main", "main", "delete", "choose_opponent_digimon", 0),
               ("security", "security", "activate_main", "self", 0)],
    "ST6-01": [("inherited", "on_deletion", "mill", "player", 2)],
    "ST6-03": [("inherited", "when_attacking", "draw", "player", 1),
               ("inherited", "when_attacking", "trash_from_hand", "player", 0)],
    "ST6-04": [("main", "on_play", "trash_to_hand", "player", 0)],
    "ST6-06": [("inherited", "when_attacking", "draw", "player", 1),
               ("inherited", "when_attacking", "trash_from_hand", "player", 0)],
    "ST6-08": [("main", "when_attacking", "memory", "player", -2)],
    "ST6-10": [("main", "when_digivolving", "trash_to_hand", "player", 0)],
    "ST6-11": [("inherited", "continuous", "dp_mod", "self", 2000)],
    "ST6-12": [("main", "when_digivolving", "grant_keyword", "choose_own_digimon", 0)],
    "ST6-13": [("main", "continuous", "security_attack_mod", "self", 1),
               ("main", "main", "play_from_trash", "player", 0)],
    "ST6-14": [("main", "own_digimon_deleted", "memory", "player", 1),
               ("security", "security", "play_self", "self", 0)],
    "ST6-15": [("main", "main", "delete", "choose_own_digimon", 0),
               ("main", "main", "delete", "choose_opponent_digimon", 0),
               ("security", "security", "delete", "choose_opponent_digimon", 0)],
    "ST6-16": [("main", "main", "play_from_trash", "player", 0),
               ("main", "main", "play_from_trash", "player", 0),
               ("security", "security", "play_from_trash", "player", 0)],
    "ST7-01": [("inherited", "opponent_digimon_deleted", "dp_mod", "self", 2000)],
    "ST7-02": [("inherited", "when_attacking", "dp_mod", "self", 2000)],
    "ST7-03": [("main", "continuous", "digivolve_into", "self", 4),
               ("inherited", "opponent_digimon_deleted", "draw", "player", 1)],
    "ST7-04": [("main", "continuous", "restrict", "self", 0)],
    "ST7-05": [("inherited", "opponent_digimon_deleted", "memory", "player", 1)],
    "ST7-06": [("main", "on_play", "delete", "choose_opponent_digimon", 0),
               ("security", "security", "play_self_after_battle", "self", 0)],
    "ST7-07": [("main", "on_play", "delete", "choose_opponent_digimon", 0)],
    "ST7-08": [("main", "when_attacking", "delete", "choose_opponent_digimon", 0),
               ("inherited", "opponent_digimon_deleted", "security_attack_mod", "self", 1)],
    "ST7-09": [("main", "continuous", "security_attack_mod", "self", 1),
               ("main", "when_attacking", "delete", "choose_opponent_digimon", 0),
               ("main", "when_attacking", "dp_mod", "self", 3000)],
    "ST7-10": [("main", "continuous", "security_attack_mod", "self", 1)],
    "ST7-11": [("main", "main", "dp_mod", "choose_own_digimon", 2000),
               ("main", "main", "security_attack_mod", "choose_own_digimon", 1),
               ("security", "security", "add_self_to_hand", "self", 0)],
    "ST7-12": [("main", "main", "delete", "choose_opponent_digimon", 0),
               ("security", "security", "activate_main", "self", 0)],
    "ST8-01": [("inherited", "continuous", "dp_mod", "self", 1000)],
    "ST8-02": [("inherited", "continuous", "dp_mod", "self", 1000)],
    "ST8-03": [("main", "on_play", "reveal_add", "player", 3)],
    "ST8-04": [("main", "continuous", "digivolve_into", "self", 4),
               ("inherited", "when_attacking", "draw", "player", 1)],
    "ST8-05": [("inherited", "when_attacking", "bounce_to_hand", "choose_opponent_digimon", 0)],
    "ST8-06": [("main", "on_play", "draw", "player", 2),
               ("security", "security", "play_self_after_battle", "self", 0)],
    "ST8-08": [("inherited", "continuous", "security_attack_mod", "self", 1)],
    "ST8-09": [("main", "when_digivolving", "security_attack_mod", "self", 1),
               ("main", "continuous", "restrict", "self", 0)],
    "ST8-10": [("main", "when_digivolving", "bounce_to_hand", "choose_opponent_digimon", 0),
               ("main", "when_attacking", "unsuspend", "self", 0)],
    "ST8-11": [("main", "main", "unsuspend", "choose_own_digimon", 0),
               ("security", "security", "add_self_to_hand", "self", 0)],
    "ST8-12": [("main", "main", "bounce_to_hand", "choose_opponent_digimon", 0),
               ("security", "security", "activate_main", "self", 0)],
}  # fmt: skip
# Keyword-only cards: a paraphrase, no effect row.
KEYWORD_ONLY = ("ST5-03", "ST5-11", "ST8-07")


@pytest.fixture(scope="module")
def registry():
    return C.load_cards()


def test_indices_follow_the_sorted_card_numbers(registry):
    assert registry.ids == ("",) + tuple(sorted(row[0] for row in STATS))  # G3, 0 = padding
    # The BT-1 reprints of ST-7 and ST-8 sort before ST1-01, so every ST card moved up by 6 when
    # they shipped: the shipped baseline's card embedding follows its cards by id
    # (train/baselines/digimon/card_ids.json), not by index.
    reprints = ("BT1-009", "BT1-019", "BT1-020", "BT1-028", "BT1-037", "BT1-038")
    assert registry.ids[1:7] == reprints
    assert registry.ids[7:39] == tuple(f"ST{s}-{i:02d}" for s in (1, 2) for i in range(1, 17))


@pytest.mark.parametrize("row", STATS, ids=[r[0] for r in STATS])
def test_printed_facts(registry, row):
    number, name, kind, color, level, cost, dp, digivolve, keywords = row
    card = registry.definition(number)
    assert card["name"] == name and C.KINDS[card["kind"]] == kind
    assert card["colors"] == 1 << C.COLORS.index(color)
    assert (card["level"], card["play_cost"], card["dp"]) == (level, cost, dp)
    got = tuple((C.COLORS[r["color"]], r["level"], r["cost"]) for r in card["digivolve"])
    assert got == digivolve
    assert tuple(k for i, k in enumerate(C.KEYWORDS) if card["keywords"] >> i & 1) == keywords
    inherited = 1 << C.KEYWORDS.index("blocker") if number == "ST5-11" else 0
    assert card["dna"] == () and card["dna_cost"] == -1 and card["inherited_keywords"] == inherited


@pytest.mark.parametrize("number", [r[0] for r in STATS])
def test_effect_rows(registry, number):
    card = registry.definition(number)
    got = [
        (C.WHERE[r["where"]], C.TRIGGERS[r["trigger"]], C.OPS[r["op"]], C.TARGETS[r["target"]],
         r["amount"])
        for r in card["effects"]
    ]  # fmt: skip
    assert got == EFFECTS.get(number, [])
    assert bool(card["text"]) == (bool(got) or number in KEYWORD_ONLY), (
        "a paraphrase exactly when the card has effects or keywords"
    )


def test_row_details_the_table_above_does_not_show(registry):
    row = lambda number, i=0: registry.definition(number)["effects"][i]  # noqa: E731
    assert row("ST1-01")["condition"] == C.CONDITIONS.index("min_sources")
    assert row("ST1-01")["condition_value"] == 4
    assert C.AMOUNT_PER[row("ST1-11")["amount_per"]] == "per_two_sources"
    assert (row("ST1-15")["count"], row("ST1-15")["max_dp"]) == (2, 4000)
    assert row("ST1-15")["flags"] == 1 << C.EFFECT_FLAGS.index("up_to")
    assert row("ST2-03")["max_level"] == 5 and row("ST2-06")["max_level"] == -1
    assert row("ST2-11")["flags"] == 1 << C.EFFECT_FLAGS.index("once_per_turn")
    assert C.DURATIONS[row("ST2-14")["duration"]] == "until_end_of_opponents_next_turn"
    assert C.DURATIONS[row("ST2-14", 1)["duration"]] == "until_end_of_your_next_turn"
    assert row("ST2-14")["cannot"] == 0b11
    for number in ("ST1-09", "ST1-11", "ST1-12", "ST2-01", "ST2-08", "ST3-01", "ST3-04"):
        assert C.WINDOWS[row(number)["window"]] == "your_turn", number
    assert C.WINDOWS[row("ST3-12")["window"]] == "opponents_turn"
    for number in ("ST3-01", "ST3-04"):
        assert row(number)["flags"] == 1 << C.EFFECT_FLAGS.index("once_per_turn"), number
    assert (C.CONDITIONS[row("ST3-05")["condition"]], row("ST3-05")["condition_value"]) == (
        "own_security_at_least",
        4,
    )
    assert (C.CONDITIONS[row("ST3-09")["condition"]], row("ST3-09")["condition_value"]) == (
        "own_security_at_most",
        3,
    )
    assert C.DURATIONS[row("ST3-15")["duration"]] == "until_end_of_opponents_next_turn"
    assert C.DURATIONS[row("ST3-15", 1)["duration"]] == "this_turn"
    # ST-5: the keyword condition, the end of the opponent's turn, grants, Digi-Burst, the cost.
    assert (C.CONDITIONS[row("ST5-01")["condition"]], row("ST5-01")["condition_value"]) == (
        "has_keyword",
        C.KEYWORDS.index("blocker"),
    )
    for number in ("ST5-04", "ST5-06"):
        assert C.CONDITIONS[row(number)["condition"]] == "opponent_did_not_attack", number
    blocker, reboot = (1 << C.KEYWORDS.index(k) for k in ("blocker", "reboot"))
    assert (row("ST5-09")["grant"], row("ST5-09")["count"]) == (blocker, 1)
    assert (row("ST5-12")["grant"], row("ST5-12")["count"]) == (reboot, 2)
    assert row("ST5-12")["flags"] == 1 << C.EFFECT_FLAGS.index("up_to")
    assert row("ST5-13", 1)["burst"] == 2 and row("ST5-16")["max_cost"] == 7
    optional, cost = (1 << C.EFFECT_FLAGS.index(f) for f in ("optional", "cost_suspend_self"))
    assert row("ST5-14")["flags"] == optional | cost
    assert C.WINDOWS[row("ST5-14")["window"]] == "opponents_turn"
    green = 1 << C.COLORS.index("green")
    assert (row("ST4-03")["colors"], row("ST4-03")["amount"], row("ST4-03")["count"]) == (
        green,
        1,
        1,
    )
    assert (row("ST4-10")["min_level"], row("ST4-10")["amount"], row("ST4-10")["count"]) == (
        6,
        5,
        1,
    )
    assert C.CONDITIONS[row("ST4-04")["condition"]] == "attacking_a_digimon"
    assert (C.CONDITIONS[row("ST4-01")["condition"]], row("ST4-01")["condition_value"]) == (
        "self_level_at_least",
        6,
    )
    assert row("ST4-11")["flags"] == 1 << C.EFFECT_FLAGS.index("once_per_turn")
    assert C.WINDOWS[row("ST4-11")["window"]] == C.WINDOWS[row("ST4-14")["window"]] == "your_turn"
    assert row("ST4-14")["flags"] == optional | cost and row("ST4-13")["burst"] == 2
    assert row("ST4-12")["cannot"] == 3 and C.DURATIONS[row("ST4-12")["duration"]] == (
        "until_end_of_opponents_next_turn"
    )


def test_row_details_of_st7_and_st8(registry):
    """The ST-7 / ST-8 rows' fields the effect table does not show (conditions, flags, windows,
    bounds, the name fields and the DP budget)."""
    row = lambda number, i=0: registry.definition(number)["effects"][i]  # noqa: E731
    flag = lambda *names: sum(1 << C.EFFECT_FLAGS.index(n) for n in names)  # noqa: E731
    cond = lambda number, i=0: (C.CONDITIONS[row(number, i)["condition"]],  # noqa: E731
                                row(number, i)["condition_value"])  # fmt: skip
    window = lambda number, i=0: C.WINDOWS[row(number, i)["window"]]  # noqa: E731
    # The Gallantmon line's "when one of your opponent's Digimon is deleted": [Your Turn], once.
    for number, i in (("ST7-01", 0), ("ST7-03", 1), ("ST7-05", 0), ("ST7-08", 1)):
        assert row(number, i)["flags"] == flag("once_per_turn"), number
        assert window(number, i) == "your_turn", number
    for number in ("ST7-01", "ST7-08"):
        assert C.DURATIONS[row(number, 0 if number == "ST7-01" else 1)["duration"]] == "this_turn"
    assert cond("ST7-02") == ("attacking_the_player", 0)
    # The special digivolutions: exact names, 4 memory, while the opponent has a level 6+.
    for number, into in (("ST7-03", "Gallantmon"), ("ST8-04", "UlforceVeedramon")):
        assert cond(number) == ("opponent_has_level_at_least", 6) and window(number) == "your_turn"
        assert (row(number)["name_is"], row(number)["amount"]) == (into, 4)
        assert into in [registry.definition(n)["name"] for n in registry.ids[1:]]
    attack_player, be_blocked = (1 << C.CANNOT.index(c) for c in ("attack_player", "be_blocked"))
    assert (row("ST7-04")["cannot"], window("ST7-04")) == (attack_player, "your_turn")
    assert (row("ST8-09", 1)["cannot"], window("ST8-09", 1)) == (be_blocked, "your_turn")
    assert [row(n)["max_dp"] for n in ("ST7-06", "ST7-07", "ST7-08")] == [4000, 5000, 3000]
    assert (row("ST7-09", 1)["max_dp"], row("ST7-09", 1)["flags"]) == (4000, flag("else_next"))
    assert C.DURATIONS[row("ST7-09", 2)["duration"]] == "this_turn"
    assert cond("ST7-11", 1) == ("own_security_at_most_opponents", 0)
    assert (row("ST7-12")["max_total_dp"], row("ST7-12")["count"]) == (8000, 10)
    assert row("ST7-12")["flags"] == flag("up_to") and row("ST7-12")["max_dp"] == -1
    # The Veemon line's hand conditions.
    assert (cond("ST8-01"), window("ST8-01")) == (("own_hand_at_least", 8), "your_turn")
    assert (cond("ST8-02"), window("ST8-02")) == (("own_hand_at_least", 8), "all_turns")
    assert cond("ST8-04", 1) == ("own_hand_at_most", 7)
    assert (cond("ST8-05"), row("ST8-05")["max_level"]) == (("own_hand_at_least", 8), 3)
    assert (cond("ST8-08"), window("ST8-08")) == (("own_hand_at_least", 8), "your_turn")
    assert (cond("ST8-10", 1), row("ST8-10", 1)["flags"]) == (("own_hand_at_least", 8),
                                                               flag("once_per_turn"))  # fmt: skip
    assert row("ST8-10")["max_level"] == 4 and row("ST8-12")["max_level"] == 6
    assert (row("ST8-03")["name_has"], row("ST8-03")["count"]) == ("Dramon", 1)
    assert row("ST8-03")["kinds"] == 1 << C.KINDS.index("digimon")
    assert row("ST8-11")["colors"] == 1 << C.COLORS.index("blue")


@pytest.mark.parametrize(
    ("deck", "name", "egg", "counts"),
    [
        ("st1", "ST-1 Gaia Red", "ST1-01", {"ST1-07": 2, "ST1-13": 4, "ST1-14": 4, "ST1-15": 2}),
        ("st2", "ST-2 Cocytus Blue", "ST2-01", {"ST2-06": 2, "ST2-13": 4, "ST2-14": 2,
                                                 "ST2-15": 4}),
        ("st3", "ST-3 Heaven's Yellow", "ST3-01", {"ST3-05": 2, "ST3-10": 2, "ST3-11": 2,
                                                    "ST3-13": 4, "ST3-14": 2, "ST3-15": 4,
                                                    "ST3-16": 2}),
        ("st4", "ST-4 Giga Green", "ST4-01", {"ST4-08": 2, "ST4-10": 4, "ST4-11": 2,
                                              "ST4-13": 2, "ST4-14": 4, "ST4-16": 2}),
        ("st6", "ST-6 Venomous Violet", "ST6-01", {"ST6-03": 4, "ST6-08": 2, "ST6-13": 2,
                                                   "ST6-14": 4, "ST6-16": 2}),
        ("st5", "ST-5 Machine Black", "ST5-01", {"ST5-08": 2, "ST5-11": 2, "ST5-12": 2,
                                                 "ST5-13": 2, "ST5-14": 4, "ST5-16": 2}),
        ("st7", "ST-7 Gallantmon", "ST7-01", {"ST7-02": 4, "ST7-03": 2, "ST7-05": 2, "ST7-09": 2,
                                               "ST7-11": 2, "ST7-12": 4, "BT1-009": 4,
                                               "BT1-019": 4, "BT1-020": 2, "ST1-16": 4}),
        ("st8", "ST-8 UlforceVeedramon", "ST8-01", {"ST8-03": 4, "ST8-04": 2, "ST8-05": 2,
                                                     "ST8-10": 2, "ST8-12": 4, "BT1-028": 4,
                                                     "BT1-037": 4, "BT1-038": 2, "ST2-13": 2}),
    ],
)  # fmt: skip
def test_starter_decks_as_sold(registry, deck, name, egg, counts):
    loaded = load_deck(deck, registry)
    assert loaded.name == name and len(loaded.main) == 50 and loaded.eggs == (egg,) * 4
    for number, copies in counts.items():
        assert loaded.main.count(number) == copies
    assert deck in SHIPPED_DECKS


def _deck(**changes):
    data = {"name": "t", "eggs": {"ST1-01": 4},
            "main": {f"ST1-{i:02d}": 4 for i in range(2, 14)} | {"ST1-14": 2}}  # fmt: skip
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("deck", "needle"),
    [
        (_deck(main={"ST1-02": 4}), "main: 4 cards; a main deck has 50"),
        (_deck(eggs={"ST1-01": 4, "ST2-01": 2}), "eggs: 6 Digi-Eggs"),
        (_deck(main={**_deck()["main"], "ST1-14": 1, "ST1-02": 5}), "5 copies"),
        (_deck(eggs={"ST1-02": 1}), "eggs.ST1-02: not a Digi-Egg"),
        (_deck(main={**_deck()["main"], "ST1-14": 1, "ST2-01": 1}), "main.ST2-01: a Digi-Egg"),
        (_deck(main={**_deck()["main"], "BT99-001": 1}), "main.BT99-001: no card"),
        (_deck(main={**_deck()["main"], "ST1-14": 0}), "ST1-14: copies must be a positive"),
        (_deck(main={**_deck()["main"], "ST1-14": 2.0}), "ST1-14: copies must be a positive"),
        ({"name": "t", "main": {}}, "missing key 'eggs'"),
        ({**_deck(), "sideboard": {}}, "unknown key 'sideboard'"),
        (_deck(name=""), "name"),
        (_deck(main=["ST1-02"]), "main: expected a mapping"),
        (3, "expected a shipped deck id"),
        (b"st1", "expected a shipped deck id"),
        ("no-such-deck.yaml", "cannot read deck"),
    ],
)
def test_deck_errors_name_the_source_and_entry(registry, deck, needle):
    with pytest.raises(tcgjax.ConfigError) as info:
        load_deck(deck, registry)
    assert needle in str(info.value), str(info.value)


def test_deck_file_with_a_duplicate_key(registry, tmp_path):
    path = tmp_path / "dup.yaml"
    path.write_text("name: d\neggs: {ST1-01: 4}\nmain: {ST1-02: 4, ST1-02: 4}\n")
    with pytest.raises(tcgjax.ConfigError, match=r"dup\.yaml.*duplicate key 'ST1-02'"):
        load_deck(str(path), registry)


def _card_file(tmp_path, effects, kind="digimon"):
    import yaml

    card = {"id": "X-01", "name": "X", "kind": kind, "colors": ["red"], "dna": [], "dna_cost": -1,
            "keywords": [], "inherited_keywords": [], "effects": effects, "text": "",
            "digivolve": [], "level": 3 if kind == "digimon" else 0,
            "play_cost": 1, "dp": 1000 if kind == "digimon" else 0}  # fmt: skip
    path = tmp_path / "cards.yaml"
    path.write_text(yaml.safe_dump({"cards": [card]}))
    return str(path)


@pytest.mark.parametrize(
    ("effects", "kind", "needle"),
    [
        ([{"where": "main", "trigger": "on_play", "op": "reveal_add", "target": "player",
           "amount": 3, "count": 4}], "digimon", "reveal_add needs 1 <= count <= amount <= 5"),
        ([{"where": "main", "trigger": "on_play", "op": "choose_one", "count": 2},
          {"where": "main", "trigger": "branch", "op": "draw", "target": "player", "amount": 1}],
         "digimon", "choose_one needs 2 branch rows after it"),
        ([{"where": "main", "trigger": "on_play", "op": "draw", "target": "player", "amount": 1,
           "kinds": ["digimon"]}], "digimon", "kinds filters the cards of"),
        ([{"where": "main", "trigger": "on_play", "op": "draw", "target": "player", "amount": 5}],
         "digimon", "draw amount 5 outside 1..3"),
        ([{"where": "main", "trigger": "on_play", "op": "delete", "target": "self"}], "digimon",
         "op delete with target self"),
        ([{"where": "main", "trigger": "continuous", "op": "memory", "target": "player"}],
         "digimon", "op memory cannot be a continuous row"),
        ([{"where": "security", "trigger": "on_play", "op": "memory", "target": "player"}],
         "tamer", "security rows"),
        ([{"where": "inherited", "trigger": "main", "op": "memory", "target": "player"}],
         "digimon", "own text (where: main)"),
        ([{"where": "main", "trigger": "when_attacking", "op": "dp_mod", "amount": 1000,
           "condition": "battling_no_source_digimon", "duration": "this_turn"}], "digimon",
         "only for continuous rows"),
        ([{"where": "security", "trigger": "security", "op": "play_self"}], "option",
         "only a Digimon or Tamer plays itself"),
        ([{"where": "main", "trigger": "main", "op": "add_self_to_hand"}], "option",
         "add_self_to_hand moves a checked security card"),
        ([{"where": "main", "trigger": "continuous", "op": "security_attack_mod",
           "target": "all_opponent_digimon", "amount": -1}], "digimon",
         "op security_attack_mod with target all_opponent_digimon"),
        ([{"where": "main", "trigger": "on_play", "op": "grant_keyword", "target": "self",
           "duration": "this_turn"}], "digimon", "grant_keyword and its keywords (grant)"),
        ([{"where": "main", "trigger": "on_play", "op": "dp_mod", "amount": 1000,
           "grant": ["blocker"], "duration": "this_turn"}], "digimon",
         "grant_keyword and its keywords (grant)"),
        ([{"where": "main", "trigger": "on_play", "op": "grant_keyword", "target": "self",
           "grant": ["rush"]}], "digimon", "grant_keyword lasts for a duration"),
        ([{"where": "main", "trigger": "on_play", "op": "memory", "target": "player",
           "amount": 1, "condition": "has_keyword"}], "digimon",
         "the condition has_keyword holds only for continuous rows"),
        ([{"where": "main", "trigger": "continuous", "op": "dp_mod", "amount": 1000,
           "condition": "has_keyword", "condition_value": 7}], "digimon",
         "has_keyword: condition_value is a keyword index 0..6"),
        ([{"where": "main", "trigger": "main", "op": "draw", "target": "player", "amount": 1,
           "condition": "opponent_has_level_at_least", "condition_value": 1}], "option",
         "opponent_has_level_at_least: condition_value is a level, 2..7"),
        ([{"where": "inherited", "trigger": "when_attacking", "op": "memory", "target": "player",
           "amount": 1, "condition": "self_level_at_least", "condition_value": 8}], "digimon",
         "self_level_at_least: condition_value is a level, 2..7"),
        ([{"where": "main", "trigger": "on_play", "op": "memory", "target": "player",
           "amount": 1, "max_cost": 3}], "digimon", "max_cost bounds a chosen Digimon"),
        ([{"where": "inherited", "trigger": "continuous", "op": "dp_mod", "amount": 1000,
           "condition": "attacking_a_digimon"}], "digimon",
         "attacking_a_digimon is read when a row resolves"),
        ([{"where": "main", "trigger": "on_play", "op": "draw", "target": "player", "amount": 1,
           "colors": ["green"]}], "digimon", "colors filters the cards of"),
        ([{"where": "main", "trigger": "on_play", "op": "mill", "target": "player",
           "amount": 4}], "digimon", "mill amount 4 outside 1..3"),
        ([{"where": "main", "trigger": "on_play", "op": "mill", "target": "opponent",
           "amount": 1}], "digimon", "op mill with target opponent"),
        ([{"where": "main", "trigger": "on_play", "op": "draw", "target": "player", "amount": 1,
           "min_level": 6}], "digimon", "min_level bounds the Digimon cards of"),
        ([{"where": "main", "trigger": "on_play", "op": "reveal_add", "target": "player",
           "amount": 5, "count": 1, "min_level": 6, "max_level": 5}], "digimon",
         "min_level 6 above max_level 5"),
        ([{"where": "main", "trigger": "main", "op": "memory", "target": "player", "amount": 1,
           "burst": 2}], "tamer", "burst (<Digi-Burst N>) is the cost of a Digimon's"),
        ([{"where": "main", "trigger": "on_play", "op": "memory", "target": "player",
           "amount": 1, "flags": ["cost_suspend_self"]}], "tamer",
         "cost_suspend_self: a Digimon's or Tamer's own optional row"),
        ([{"where": "main", "trigger": "main", "op": "memory", "target": "player",
           "amount": 1, "flags": ["optional", "cost_suspend_self"]}], "option",
         "cost_suspend_self: a Digimon's or Tamer's own optional row"),
        ([{"where": "main", "trigger": "continuous", "op": "dp_mod", "amount": 1000,
           "flags": ["optional"]}], "digimon", "a continuous row is not optional"),
        ([{"where": "main", "trigger": "on_play", "op": "trash_security_top", "target": "player",
           "amount": 0}], "digimon", "trash_security_top amount 0 outside 1..3"),
        ([{"where": "main", "trigger": "on_play", "op": "draw", "target": "player", "amount": 1,
           "play_costs": [1]}], "digimon", "play_costs filters the cards of"),
        ([{"where": "main", "trigger": "on_play", "op": "trash_to_hand", "target": "player",
           "flags": ["no_on_play"]}], "digimon", "no_on_play is a flag of"),
        ([{"where": "main", "trigger": "main", "op": "play_from_trash", "target": "player",
           "kinds": ["option"]}], "option", "play_from_trash plays Digimon or Tamers"),
        ([{"where": "main", "trigger": "main", "op": "delete", "target": "choose_own_digimon",
           "flags": ["gates_next"]}], "option", "gates_next needs a next row"),
        ([{"where": "main", "trigger": "main", "op": "delete", "target": "choose_own_digimon",
           "flags": ["gates_next"]},
          {"where": "security", "trigger": "security", "op": "activate_main"}], "option",
         "gates_next needs a next row with the same where and trigger"),
        ([{"where": "main", "trigger": "main", "op": "memory", "target": "player", "amount": 1,
           "flags": ["gates_next"]},
          {"where": "main", "trigger": "main", "op": "draw", "target": "player", "amount": 1}],
         "option", "gates_next is set on a row that chooses"),
        ([{"where": "main", "trigger": "main", "op": "delete", "target": "choose_own_digimon",
           "flags": ["else_next"]}], "option", "else_next needs a next row"),
        ([{"where": "main", "trigger": "continuous", "op": "restrict", "target": "self"}],
         "digimon", "restrict and what it forbids"),
        ([{"where": "main", "trigger": "on_play", "op": "draw", "target": "player", "amount": 1,
           "cannot": ["be_blocked"]}], "digimon", "restrict and what it forbids"),
        ([{"where": "main", "trigger": "continuous", "op": "restrict",
           "target": "all_own_digimon", "cannot": ["attack"]}], "digimon",
         "op restrict with target all_own_digimon"),
        ([{"where": "main", "trigger": "main", "op": "memory", "target": "player", "amount": 1,
           "flags": ["else_next"]},
          {"where": "main", "trigger": "main", "op": "draw", "target": "player", "amount": 1}],
         "option", "else_next is set on a row that chooses"),
        ([{"where": "main", "trigger": "main", "op": "delete", "target": "choose_own_digimon",
           "flags": ["else_next", "up_to"]},
          {"where": "main", "trigger": "main", "op": "draw", "target": "player", "amount": 1}],
         "option", "else_next on a row the player may decline"),
        ([{"where": "main", "trigger": "main", "op": "delete", "target": "choose_own_digimon",
           "flags": ["else_next", "gates_next"]},
          {"where": "main", "trigger": "main", "op": "draw", "target": "player", "amount": 1}],
         "option", "gates_next and else_next together"),
        ([{"where": "main", "trigger": "on_play", "op": "trash_security_top",
           "target": "choose_opponent_digimon", "count": 1, "amount": 1}], "digimon",
         "op trash_security_top with target choose_opponent_digimon"),
        ([{"where": "main", "trigger": "main", "op": "memory", "target": "player", "amount": 1,
           "burst": 5}], "digimon", "burst"),
    ],
)  # fmt: skip
def test_rows_the_interpreter_cannot_run_are_refused_by_name(tmp_path, effects, kind, needle):
    """A row outside what the effect interpreter runs would silently do nothing: refused."""
    path = _card_file(tmp_path, effects, kind)
    with pytest.raises(tcgjax.CardDataError) as info:
        C.load_cards(path)
    message = str(info.value)
    assert "cards.yaml" in message and "X-01" in message and "effects" in message, message
    assert needle in message, message


# -- The loader's rules of the ST-7 / ST-8 rows (special digivolution, after-battle play, budget) --


def test_budget_rows_are_refused_on_other_ops_and_without_up_to():
    from tcgjax.core.cards import CardRegistry
    from tcgjax.core.errors import CardDataError
    from tcgjax.games.digimon import cards as C

    row = {"where": "main", "trigger": "main", "op": "delete", "count": 10,
           "target": "choose_opponent_digimon", "max_total_dp": 8000}  # fmt: skip
    for effect, message in (
        (row, "it needs the flag up_to"),
        (dict(row, op="bounce_to_hand", flags=["up_to"]), "max_total_dp bounds"),
        (dict(row, max_total_dp=0, flags=["up_to"]), "max_total_dp is a budget above 0 DP"),
        ({"where": "main", "trigger": "continuous", "op": "digivolve_into", "amount": 4},
         "digivolve_into and the card name"),
        ({"where": "main", "trigger": "main", "op": "play_self_after_battle"},
         "play_self_after_battle is a Digimon card's security row"),
    ):  # fmt: skip
        bad = other("BAD", "option", effects=[effect])
        with pytest.raises(CardDataError, match=message):
            C.check_card_rules(CardRegistry(C.SCHEMA, [bad], source="bad.yaml"))


SPECIAL_ROW = {"where": "main", "trigger": "continuous", "window": "your_turn",
               "op": "digivolve_into", "name_is": "SP-TARGET", "amount": 4}  # fmt: skip
AFTER_BATTLE = {"where": "security", "trigger": "security", "op": "play_self_after_battle"}
BUDGET_ROW = {"where": "main", "trigger": "main", "op": "delete", "count": 10, "flags": ["up_to"],
              "target": "choose_opponent_digimon", "max_total_dp": 8000}  # fmt: skip


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        (digimon("OK", 3, 2000, effects=[SPECIAL_ROW]), None),
        (digimon("OK", 3, 2000, effects=[dict(SPECIAL_ROW, amount=0)]), None),
        (digimon("OK", 3, 2000, effects=[dict(SPECIAL_ROW, amount=20)]), None),
        (digimon("BAD", 3, 2000, effects=[dict(SPECIAL_ROW, amount=21)]), "the memory cost, 0..20"),
        (digimon("BAD", 3, 2000, effects=[dict(SPECIAL_ROW, amount=-1)]), "the memory cost, 0..20"),
        (digimon("BAD", 3, 2000, effects=[SPECIAL_ROW, dict(SPECIAL_ROW, name_is="OD-BIG")]),
         "one digivolve_into row per card"),
        (digimon("BAD", 3, 2000, effects=[dict(SPECIAL_ROW, window="all_turns")]),
         "in force in your turn only"),
        (digimon("BAD", 3, 2000, effects=[dict(SPECIAL_ROW, window="opponents_turn")]),
         "in force in your turn only"),
        (digimon("BAD", 3, 2000, effects=[dict(SPECIAL_ROW, where="inherited")]),
         "a Digimon's own continuous row"),
        (other("BAD", "tamer", effects=[SPECIAL_ROW]), "a Digimon's own continuous row"),
        (digimon("BAD", 3, 2000, effects=[{"where": "main", "trigger": "main", "op": "draw",
                                           "target": "player", "amount": 1, "name_is": "X"}]),
         "digivolve_into and the card name"),
        (digimon("OK", 3, 2000, effects=[AFTER_BATTLE]), None),
        (other("BAD", "tamer", effects=[AFTER_BATTLE]), "a Digimon card's security row"),
        (other("BAD", "option", effects=[AFTER_BATTLE]), "a Digimon card's security row"),
        (other("OK", "option", cost=0, effects=[BUDGET_ROW]), None),
        (other("OK", "option", cost=0, effects=[dict(BUDGET_ROW, max_total_dp=1)]), None),
        (other("OK", "option", cost=0, effects=[dict(BUDGET_ROW, max_total_dp=30000)]), None),
        (other("BAD", "option", cost=0, effects=[dict(BUDGET_ROW, max_total_dp=30001)]),
         "'max_total_dp': 30001 is outside \\[-1, 30000\\]"),
        (digimon("OK", 3, 2000, effects=[dict(SPECIAL_ROW, max_total_dp=-1)]), None),
        (digimon("BAD", 3, 2000, effects=[dict(SPECIAL_ROW, max_total_dp=-2)]),
         "'max_total_dp': -2 is outside \\[-1, 30000\\]"),
    ],
)  # fmt: skip
def test_the_loader_rules_of_the_st7_st8_rows(entry, problem):
    """What the card loader accepts and refuses of the special digivolution, the after-battle
    play and the total-DP budget rows, each refusal by its rule (no silent fallback)."""
    from tcgjax.core.cards import CardRegistry
    from tcgjax.core.errors import CardDataError
    from tcgjax.games.digimon import cards as C

    target = digimon("SP-TARGET", 6, 11000, digivolve=[{"color": "red", "level": 5, "cost": 3}])
    entries = [entry, target]
    if problem is None:
        C.check_card_rules(CardRegistry(C.SCHEMA, entries, source="rows.yaml"))
        return
    with pytest.raises(CardDataError, match=problem):
        C.check_card_rules(CardRegistry(C.SCHEMA, entries, source="rows.yaml"))
