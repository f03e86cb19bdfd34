"""What a player may do now: the rule-error code of every action id (the legal-action mask
is where it is 0), per action kind and per selection phase, and who decides.

A room of :class:`~tcgjax.games.digimon.rules.DigimonRules` (a mixin: its methods read the
rules object's tables, set up in ``rules.py``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from tcgjax.core import zones
from tcgjax.core.arrays import materialize, take, take_static
from tcgjax.core.tree import when_some
from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon.cards import (
    DIGI_EGG,
    DIGIMON,
    OPTION,
    TAMER,
)
from tcgjax.games.digimon.state import (
    _CODE_DTYPE,
    BREEDING_SLOT,
    CANNOT_ATTACK,
    CANNOT_ATTACK_PLAYER,
    CANNOT_BE_BLOCKED,
    CANNOT_BLOCK,
    CODES,
    KW,
    NUM_SLOTS,
    PHASE,
    DigimonState,
    Permanents,
    _first_error,
    zone_of,
)


class Legality:
    """What a player may do: the rule-error code of every action id, and who decides."""

    # -- legality ----------------------------------------------------------------------------------

    def action_errors(self, state: DigimonState) -> jax.Array:
        """Error code of every action (0 = legal) in the current phase. int32[A]."""
        # Host-known rows: every id of each range (``_range_codes`` lays them out without gathers).
        hands, rows = np.arange(A.HAND_SLOTS), np.arange(40)
        # <Blast Digivolve> rows (no row here) are evaluated below, only in a counter timing.
        no_rows = np.arange(0)
        part = self._range_codes(state, hands, hands, rows, np.arange(100), no_rows)
        parts = [
            part["play"],
            jnp.full((A.HAND_SLOTS,), CODES["wrong_phase"]),  # trash_hand: SelectHand only
            part["hatch"][None],
            part["move"][None],
            part["pass"][None],
            part["dna"],
            jnp.full((7,), CODES["unused_action"]),
            part["attack"],
            part["digivolve"],
            part["activate"],
            jnp.full((A.LAYOUT.size("source"),), CODES["wrong_phase"]),
        ]
        # The 2120 codes travel as int8 (every code is below 128: ``_CODE_DTYPE``), a quarter of
        # the memory of the largest arrays of the mask, and widen once at the end.
        codes = jnp.concatenate([jnp.asarray(x, _CODE_DTYPE).reshape(-1) for x in parts])
        # A selection's codes, and a counter timing's, only for the games of the batch in one
        # (``when_some``): the mask is computed for every game at every step.
        codes = when_some(state.selection.card >= 0, self._selection_codes, codes, state)
        counter_timing = state.board.phase == PHASE["counter_timing"]
        codes = when_some(counter_timing, self._counter_codes, codes, state)
        return codes.astype(jnp.int32)

    def _selection_codes(self, codes: jax.Array, state: DigimonState) -> jax.Array:
        del codes  # a selection replaces every code
        return self._select_errors(state).astype(_CODE_DTYPE)

    def _counter_codes(self, codes: jax.Array, state: DigimonState) -> jax.Array:
        """A counter timing's codes: 62 declines, 400-999 are the defender's <Blast Digivolve>."""
        del codes
        counter = jnp.full(A.NUM_ACTIONS, CODES["wrong_phase"], jnp.int32)
        counter = counter.at[A.LAYOUT.start("pass")].set(0)
        start, stop = A.LAYOUT.start("digivolve"), A.LAYOUT.start("activate")
        blast = self.blast_errors(state, jnp.arange(40)).astype(jnp.int32)
        return counter.at[start:stop].set(blast.reshape(-1)).astype(_CODE_DTYPE)

    def action_error(self, state: DigimonState, action: jax.Array) -> jax.Array:
        """``action_errors(state)[action]`` for one in-range id (int32[]), evaluating the rules of
        its own range at its own hand position or permanent only (``env.step`` names an illegal
        action's rule with it; the whole mask is computed once per step, for the next state)."""
        L = A.LAYOUT
        action = jnp.asarray(action, jnp.int32)
        local = lambda name: jnp.clip(action - L.start(name), 0, L.size(name) - 1)  # noqa: E731
        dig_hand, dig_field = jnp.divmod(local("digivolve"), A.FIELD_STRIDE)
        act_slot, act_row = jnp.divmod(local("activate"), A.SOURCE_STRIDE)
        one = lambda x: jnp.reshape(x, (1,))  # noqa: E731
        part = self._range_codes(
            state,
            one(local("play")),
            one(local("dna")),
            one(dig_hand),
            one(act_slot),
            one(dig_hand),
        )
        ends = lambda name: (L.start(name), L.start(name) + L.size(name))  # noqa: E731
        in_range = lambda name: (action >= ends(name)[0]) & (action < ends(name)[1])  # noqa: E731
        code = jnp.select(
            [
                in_range("play"),
                in_range("trash_hand"),
                in_range("hatch"),
                in_range("move_breeding"),
                in_range("pass"),
                in_range("dna"),
                in_range("unused"),
                in_range("attack"),
                in_range("digivolve"),
                in_range("activate"),
            ],
            [
                part["play"][0],
                CODES["wrong_phase"],
                part["hatch"],
                part["move"],
                part["pass"],
                part["dna"][0],
                CODES["unused_action"],
                part["attack"][local("attack")],
                part["digivolve"][0, dig_field],
                part["activate"][0, act_row],
            ],
            CODES["wrong_phase"],
        )
        code = jnp.where(state.selection.card >= 0, self._select_errors(state)[action], code)
        counter = jnp.select(
            [action == L.start("pass"), in_range("digivolve")],
            [0, part["blast"][0, dig_field]],
            CODES["wrong_phase"],
        )
        return jnp.where(state.board.phase == PHASE["counter_timing"], counter, code).astype(
            jnp.int32
        )

    def _range_codes(
        self, state: DigimonState, play_at, dna_at, digivolve_at, activate_at, blast_at
    ) -> dict[str, jax.Array]:
        """The codes of the decision ranges outside selections, each evaluated at the given rows
        only (int vectors): ``play`` ``[n]`` and ``dna`` ``[n]`` at hand positions,
        ``digivolve`` ``[n, 15]`` at hand rows (0-39: rows 30+ name no card), ``activate``
        ``[n, 10]`` at permanent indices (0-99), ``blast`` ``[n, 15]`` (the defender's
        <Blast Digivolve>) at hand rows; and whole: ``hatch``, ``move``, ``pass`` (scalars),
        ``attack`` ``[300]``. :meth:`action_errors` asks for every row, :meth:`action_error`
        for one: both read the same rules."""
        board = state.board
        me = board.active_player.astype(jnp.int32)
        phase = board.phase.astype(jnp.int32)
        main, breeding = phase == PHASE["main"], phase == PHASE["breeding"]
        block = phase == PHASE["block_timing"]
        top, size = self.stacks(state)
        my_top, my_size = jnp.where(me == 0, top[0], top[1]), jnp.where(me == 0, size[0], size[1])
        field_full = jnp.all(my_size[: A.FIELD_SLOTS] > 0)
        afford = lambda cost: cost <= state.memory.astype(jnp.int32) + self._reach  # noqa: E731
        hand = self.hand(state, me)  # [H]

        def at_hand(rows):
            # Host-known rows (the whole mask) are laid out without a gather (``take``).
            xnp = np if isinstance(rows, np.ndarray) else jnp
            return jnp.where(
                rows < A.HAND_SLOTS, take(hand, xnp.clip(rows, 0, A.HAND_SLOTS - 1)), -1
            )

        cards = at_hand(play_at)
        kind = self._card(state, "kind", cards)
        play = _first_error(
            (~main, "wrong_phase"),
            (cards < 0, "no_card_in_hand_slot"),
            ((kind != DIGIMON) & (kind != TAMER) & (kind != OPTION), "cannot_play_kind"),
            ((kind == OPTION) & ~self._colors_ok(state, me, cards), "option_color_missing"),
            (~afford(self._card(state, "play_cost", cards).astype(jnp.int32)), "not_enough_memory"),
            # An Option never enters the battle area, so it needs no free slot.
            (field_full & (kind != OPTION), "battle_area_full"),
        )

        # Digivolve: [n, 15] (field indices 13, 14 unused), requirement rows matched elementwise.
        # For the whole mask, worked out once per real hand position (``materialize``) and then
        # laid out on the 40 id rows, rather than recomputed for each id.
        whole = isinstance(digivolve_at, np.ndarray)
        cards = at_hand(np.arange(A.HAND_SLOTS) if whole else digivolve_at)  # [n]
        kind = self._card(state, "kind", cards)
        perm = self.permanents(state)
        special = jnp.where(me == 0, perm.digivolve_into[0], perm.digivolve_into[1])
        cost = self.digivolve_costs(state, cards, my_top, special)  # [n, S], -1: no way
        target_kind = self._card(state, "kind", my_top)  # [S]
        card_code = _first_error(
            (~main, "wrong_phase"),
            (cards < 0, "no_card_in_hand_slot"),
            (kind != DIGIMON, "not_a_digimon"),
        )  # [n]
        no_target = materialize(~(my_size > 0))[None, :]  # per target, worked out once
        not_digimon = materialize((target_kind != DIGIMON) & (target_kind != DIGI_EGG))[None, :]
        target_code = _first_error(
            (no_target, "no_permanent_there"),
            (not_digimon | (cost < 0), "requirement_not_met"),
            (~afford(cost), "not_enough_memory"),
        )
        unused = jnp.full((cost.shape[0], A.FIELD_STRIDE - NUM_SLOTS), CODES["no_permanent_there"])
        target_code = jnp.concatenate([target_code, unused], axis=1)  # [n, 15]
        card_code = materialize(card_code)[:, None]
        digivolve = jnp.where(card_code != 0, card_code, target_code)
        if whole:
            digivolve = take_static(
                materialize(digivolve), np.minimum(digivolve_at, A.HAND_SLOTS - 1)
            )
        # Hand rows 30-39 exist in the id layout but never hold a card, in any phase.
        digivolve = jnp.where(
            (digivolve_at < A.HAND_SLOTS)[:, None], digivolve, CODES["no_card_in_hand_slot"]
        )

        breeding_size = my_size[BREEDING_SLOT]
        eggs_left = zones.zone_count(board, zone_of("eggs", me)) > 0
        hatch = _first_error(
            (~breeding, "wrong_phase"),
            (breeding_size > 0, "breeding_area_occupied"),
            (~eggs_left, "egg_deck_empty"),
        )
        breeding_top = my_top[BREEDING_SLOT]
        movable = (breeding_size > 0) & (self._card(state, "kind", breeding_top) == DIGIMON)
        movable &= self._card(state, "level", breeding_top) >= 3
        move = _first_error(
            (~breeding, "wrong_phase"),
            (~movable, "cannot_move_from_breeding"),
            (field_full, "battle_area_full"),
        )
        return {
            "play": play,
            "digivolve": digivolve,
            "hatch": hatch,
            "move": move,
            "pass": _first_error((~(main | breeding | block), "wrong_phase")),
            "dna": self._dna_errors(state, at_hand(dna_at), main, afford, my_top),
            "attack": self._attack_errors(state, main, block, perm).reshape(-1),
            "activate": self._activate_errors(state, main, my_top, activate_at, my_size),
            "blast": self.blast_errors(state, blast_at),
        }

    def blast_errors(self, state: DigimonState, rows: jax.Array | None = None) -> jax.Array:
        """Codes of the defender's <Blast Digivolve> ids ``[40, 15]`` (hand, field) in a counter
        timing: a hand card with the keyword onto one of their battle-area Digimon whose top card
        meets a digivolve requirement, free of cost (whatever the current phase). ``rows``
        (int ``[n]``, hand rows 0-39): only those rows, ``[n, 15]``."""
        rows = jnp.arange(40) if rows is None else rows
        defender = 1 - state.board.active_player.astype(jnp.int32)
        their_hand = self.hand(state, defender)  # [H]
        hand = jnp.where(rows < A.HAND_SLOTS, their_hand[jnp.clip(rows, 0, A.HAND_SLOTS - 1)], -1)
        top, size = self.stacks(state)
        their_top = jnp.where(defender == 0, top[0], top[1])
        their_size = jnp.where(defender == 0, size[0], size[1])
        # <Blast Digivolve> is in the opponent's turn: a digivolve_into row ([Your Turn] only,
        # the loader's rule) is never in force then.
        cost = self.digivolve_costs(state, hand, their_top)  # [n, S]
        bit = 1 << KW["blast_digivolve"]
        blast = (self._card(state, "keywords", hand).astype(jnp.int32) & bit) != 0
        field = jnp.arange(A.FIELD_STRIDE)
        safe = jnp.minimum(field, NUM_SLOTS - 1)
        on_field = (field < A.FIELD_SLOTS) & (their_size[safe] > 0)
        is_digimon = self._card(state, "kind", their_top)[safe] == DIGIMON
        codes = _first_error(
            (hand[:, None] < 0, "no_card_in_hand_slot"),
            (~blast[:, None], "not_blast_digivolve"),
            (~on_field[None, :], "no_permanent_there"),
            (~is_digimon[None, :] | (cost[:, safe] < 0), "requirement_not_met"),
        )  # [n, 15]
        return codes

    def _colors_ok(self, state: DigimonState, player, cards) -> jax.Array:
        """bool[...]: each of ``cards``' colors is among ``player``'s Digimon, Tamers and
        Digi-Eggs in the battle and breeding areas (the Option color rule)."""
        top, _ = self.stacks(state)
        mine = jnp.where(player == 0, top[0], top[1])  # [S]
        kind = self._card(state, "kind", mine)
        counts = (kind == DIGIMON) | (kind == TAMER) | (kind == DIGI_EGG)
        have = jnp.bitwise_or.reduce(
            jnp.where(counts, self._card(state, "colors", mine).astype(jnp.int32), 0)
        )
        need = self._card(state, "colors", cards).astype(jnp.int32)
        return (need & ~have) == 0

    def _attack_errors(self, state: DigimonState, main, block, perm: Permanents) -> jax.Array:
        """Codes of the attack range ``[20, 15]``: attacks in Main, blocker choices (ids 100-111)
        in BlockTiming."""
        me = state.board.active_player.astype(jnp.int32)
        mine = lambda x: jnp.where(me == 0, x[0], x[1])  # noqa: E731
        theirs = lambda x: jnp.where(me == 0, x[1], x[0])  # noqa: E731
        attacker_in_range = np.arange(20) < A.FIELD_SLOTS
        # Host-known index layouts (``take_static``: no gather that would keep the batch axis in
        # the middle under vmap).
        a = np.minimum(np.arange(20), A.FIELD_SLOTS - 1)
        t = np.minimum(np.arange(A.FIELD_STRIDE), A.FIELD_SLOTS - 1)
        rush = take_static(mine(perm.keywords)[:, KW["rush"]], a)
        fresh = take_static(mine(state.entered_turn), a) >= state.board.turn_number
        target_ok = (np.arange(A.FIELD_STRIDE) == A.TARGET_PLAYER) | (
            (np.arange(A.FIELD_STRIDE) < A.FIELD_SLOTS)
            & (take_static(theirs(perm.kind), t) == DIGIMON)
            & take_static(theirs(state.suspended), t)
        )
        # Per attacker, then per target, each worked out once (``materialize`` keeps XLA from
        # recomputing them for each of the 300 ids); the first failing check in that order.
        attacker_code, target_code = map(
            materialize,
            (
                _first_error(
                    (~main, "wrong_phase"),
                    (~attacker_in_range | (take_static(mine(perm.kind), a) != DIGIMON),
                     "no_attacker"),
                    (take_static(mine(state.suspended), a), "attacker_suspended"),
                    (fresh & ~rush, "attacked_this_turn_entry"),
                    (take_static(mine(self.cannot(state, perm, CANNOT_ATTACK)), a),
                     "cannot_attack"),
                ),
                _first_error((~target_ok, "bad_attack_target")),
            ),
        )  # fmt: skip
        # "Cannot attack the player" (ST7-04) forbids one target of an attacker: the player.
        no_player = take_static(mine(self.cannot(state, perm, CANNOT_ATTACK_PLAYER)), a)  # [20]
        at_player = np.arange(A.FIELD_STRIDE) == A.TARGET_PLAYER
        pair_code = jnp.where(
            no_player[:, None] & at_player[None, :] & (target_code[None, :] == 0),
            CODES["cannot_attack_player"],
            target_code[None, :],
        )
        attack = jnp.where(attacker_code[:, None] != 0, attacker_code[:, None], pair_code)
        blockers = materialize(self.blockers(state, perm))  # [12] of the defender
        # Block timing: ids 100-111 pick the blocker at that field index.
        block_code = jnp.concatenate(
            [
                jnp.where(blockers, 0, CODES["not_a_blocker"]),
                jnp.full(20 * A.FIELD_STRIDE - A.FIELD_SLOTS, CODES["wrong_phase"]),
            ]
        )
        return jnp.where(block, block_code, attack.reshape(-1))

    def blockers(self, state: DigimonState, perm: Permanents | None = None) -> jax.Array:
        """bool[12]: the defender's (non-active player's) Digimon that may block now."""
        perm = self.permanents(state) if perm is None else perm
        active = state.board.active_player.astype(jnp.int32)
        defender = 1 - active
        pick = lambda x: jnp.where(defender == 0, x[0], x[1])[: A.FIELD_SLOTS]  # noqa: E731
        # An attacker that cannot be blocked (ST8-09) is offered no blocker (Q703).
        attacker = state.attacker.astype(jnp.int32)
        unblockable = jnp.where(active == 0, *self.cannot(state, perm, CANNOT_BE_BLOCKED))
        unblockable = (attacker >= 0) & unblockable[jnp.clip(attacker, 0, A.FIELD_SLOTS - 1)]
        return (
            (pick(perm.kind) == DIGIMON)
            & pick(perm.keywords)[:, KW["blocker"]]
            & ~pick(state.suspended)
            & ~pick(self.cannot(state, perm, CANNOT_BLOCK))
            & ~unblockable
        )

    def cannot(self, state: DigimonState, perm: Permanents, bit: int) -> jax.Array:
        """bool[2, S]: the permanent may not do what ``bit`` (a ``CANNOT_*``) names: a timed
        restriction (:meth:`restricted`) or one of its own continuous ``restrict`` rows."""
        return self.restricted(state, bit) | ((perm.cannot & bit) != 0)

    def decider(self, state: DigimonState) -> jax.Array:
        """The player to act: the defender during the attack timings, else the turn player."""
        phase = state.board.phase
        defending = (phase == PHASE["block_timing"]) | (phase == PHASE["counter_timing"])
        active = state.board.active_player.astype(jnp.int32)
        chooser = state.board.owner[jnp.maximum(state.selection.card.astype(jnp.int32), 0)]
        selecting = state.selection.card >= 0
        return jnp.where(selecting, chooser, jnp.where(defending, 1 - active, active)).astype(
            jnp.int32
        )

    def digivolve_costs(
        self, state: DigimonState, hand: jax.Array, tops: jax.Array, special=None
    ) -> jax.Array:
        """Cheapest digivolve cost of each hand card onto each permanent: int32[H, S], -1 when no
        requirement matches (level equal, color among the top card's colors) or either card is
        missing (-1). One lookup in the host-built table of the decks' definitions. ``special``
        (bool[S], optional): the top card's ``digivolve_into`` row is in force
        (``Permanents.digivolve_into``), so the named cards digivolve onto it at the row's cost,
        ignoring the printed requirements (rules 8-1-2-2), the cheaper way where both apply;
        the same lookup, in the table's second layer."""
        # Each card's table row / column worked out once (``materialize``: not redone, through
        # three gathers, for each of the H x S entries).
        compact = lambda cards: materialize(  # noqa: E731
            jnp.where(cards >= 0, jnp.asarray(self._compact)[self._definition(state, cards)], 0)
        ).astype(jnp.int32)
        if special is None or not self._has_special:  # host-known
            table = jnp.asarray(self._digivolve_cost)
            return table[compact(hand)[:, None], compact(tops)[None, :]].astype(jnp.int32)
        table = jnp.asarray(self._digivolve_costs_by_live)
        layer = materialize(special.astype(jnp.int32))[None, :]
        return table[layer, compact(hand)[:, None], compact(tops)[None, :]].astype(jnp.int32)

    def legal_action_mask(self, state: DigimonState) -> jax.Array:
        """bool[2120]; never all False before the game ends (pass is legal in Breeding and Main)."""
        return self.action_errors(state) == 0
