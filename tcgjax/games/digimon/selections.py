"""Selection phases: what each pending choice offers (SelectTarget, SelectSource, SelectHand,
SelectReveal, SelectTrash, SelectSecurity, SelectEffectChoice, SelectMaterial) and what a
chosen id does (:meth:`Selections._select`).

A room of :class:`~tcgjax.games.digimon.rules.DigimonRules` (a mixin: its methods read the
rules object's tables, set up in ``rules.py``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from tcgjax.core import zones
from tcgjax.core.arrays import any_along
from tcgjax.core.effects import Selection
from tcgjax.core.tree import tree_where, when_any
from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon.cards import (
    DIGIMON,
    MAX_BRANCHES,
    MAX_REVEAL,
    TAMER,
)
from tcgjax.games.digimon.state import (
    CHOICE_BOTTOM,
    CHOICE_CONFIRM,
    CHOICE_MULLIGAN,
    CHOICE_ORDER,
    CHOICE_ROW,
    CODES,
    FLAG_COST_SUSPEND_SELF,
    FLAG_GATES_NEXT,
    FLAG_NO_ON_PLAY,
    FLAG_OPTIONAL,
    FLAG_UP_TO,
    GROUP_CONFIRMED,
    NUM_SLOTS,
    OP_DE_DIGIVOLVE,
    OP_PLAY_FREE,
    OP_PLAY_FROM_TRASH,
    OP_REVEAL_ADD,
    OP_SUSPEND,
    OP_TRASH_FROM_HAND,
    OP_TRASH_SOURCES,
    OP_UNSUSPEND,
    PHASE,
    QUEUE_SIZE,
    REVEAL_SLOTS,
    SECURITY_SLOTS,
    TARGET_CHOOSE_OPP,
    TARGET_CHOOSE_OPP_SUSPENDED,
    TARGET_CHOOSE_OWN,
    TARGET_PLAYER,
    TRASH_SLOTS,
    TRIGGER,
    DigimonState,
    _membership,
    slot_zone,
    zone_of,
)


class Selections:
    """Selection phases: what each pending choice offers and what a chosen id does."""

    # -- selections (SelectTarget, SelectSource) ----------------------------------------------------

    def selection_targets(self, state: DigimonState) -> jax.Array:
        """bool[2, 12]: the permanents (own = controller's row) the pending row may choose now."""
        card = jnp.maximum(state.selection.card.astype(jnp.int32), 0)
        definition = state.board.definition[card]
        row = jnp.maximum(state.selection.row.astype(jnp.int32), 0)
        col = lambda name: self.cards[f"effects.{name}"][definition, row]  # noqa: E731
        controller = state.board.owner[card].astype(jnp.int32)
        perm = self.permanents(state)
        field = lambda x: x[:, : A.FIELD_SLOTS]  # noqa: E731
        digimon = field(perm.kind) == DIGIMON
        level = self._card(state, "level", field(perm.top)).astype(jnp.int32)
        max_dp, max_level = col("max_dp").astype(jnp.int32), col("max_level").astype(jnp.int32)
        bounds = ((max_dp < 0) | (field(perm.dp) <= max_dp)) & (
            (max_level < 0) | (level <= max_level)
        )
        max_cost = col("max_cost").astype(jnp.int32)
        play_cost = self._card(state, "play_cost", field(perm.top)).astype(jnp.int32)
        bounds &= (max_cost < 0) | (play_cost <= max_cost)
        # A row's colors filter the Digimon it may choose, own or opposing (ST8-11: "one of your
        # blue Digimon"): the top card shares one of them; none listed, any color.
        colors = col("colors").astype(jnp.int32)
        top_colors = self._card(state, "colors", field(perm.top)).astype(jnp.int32)
        digimon &= (colors == 0) | ((top_colors & colors) != 0)
        target, op = col("target"), col("op")
        owner = jnp.arange(2)[:, None]
        own, theirs = owner == controller, owner != controller
        sources = field(perm.size) - 1
        which = jnp.select(
            [
                target == TARGET_CHOOSE_OWN,
                target == TARGET_CHOOSE_OPP,
                target == TARGET_CHOOSE_OPP_SUSPENDED,
            ],
            [
                own & digimon,
                theirs & digimon & bounds,
                theirs & digimon & bounds & field(state.suspended),
            ],
            theirs & digimon & bounds & (sources == 0),  # choose_opponent_no_source_digimon
        )
        # Trashing digivolution cards needs a Digimon that has some; <De-Digivolve> a Digimon
        # with digivolution cards whose top card is above level 3.
        which &= (op != OP_TRASH_SOURCES) | (sources > 0)
        which &= (op != OP_DE_DIGIVOLVE) | ((sources > 0) & (level > 3))
        which &= (op != OP_SUSPEND) | ~field(state.suspended)
        which &= (op != OP_UNSUSPEND) | field(state.suspended)
        if self._budget_rows:  # host-known: some row deletes under a total-DP budget
            # ``max_total_dp`` (ST7-12): a Digimon not yet picked whose DP fits what the ones
            # picked (their DP read now: nothing changes between picks, Q692-Q694) left.
            budget = col("max_total_dp").astype(jnp.int32)
            picked = theirs & self._picked_slots(state)[None, :]  # [2, 12]
            spent = jnp.sum(jnp.where(picked, field(perm.dp), 0))
            which &= (budget < 0) | (~picked & (field(perm.dp) + spent <= budget))
        selecting = state.board.phase == PHASE["select_target"]
        return which & (state.selection.card >= 0) & selecting

    @staticmethod
    def _picked_slots(state: DigimonState) -> jax.Array:
        """bool[12]: the opposing battle slots a ``max_total_dp`` row has picked so far (bits of
        ``selection.picked``; -1, the unused value, is none)."""
        picked = jnp.maximum(state.selection.picked.astype(jnp.int32), 0)
        return ((picked >> jnp.arange(A.FIELD_SLOTS)) & 1) == 1

    def _delete_picked(self, state: DigimonState, player, picked: jax.Array) -> DigimonState:
        """The Digimon a ``max_total_dp`` row picked (``picked`` bool[12], slots of ``player``)
        are deleted together: one event, so their [On Deletion] rows and the "when a Digimon is
        deleted" triggers fire once, as one group (rules 1-3-6 example, Q692-Q694)."""
        gone = (jnp.arange(2)[:, None] == player) & jnp.pad(picked, (0, NUM_SLOTS - A.FIELD_SLOTS))
        state = self._push(state, TRIGGER["on_deletion"], gone, *self._deletion_pair(gone))
        return jax.lax.fori_loop(
            0,
            A.FIELD_SLOTS,
            lambda i, s: self._delete(s, player, i, picked[i], deleted=False),
            state,
        )

    def source_choices(self, state: DigimonState) -> jax.Array:
        """bool[12, 10] in SelectSource (``play_from_sources``): the Digimon cards among the
        digivolution cards (stack position, bottom = 0) of the controller's battle-area Digimon
        that may be played now (a free battle slot is needed)."""
        card = jnp.maximum(state.selection.card.astype(jnp.int32), 0)
        controller = state.board.owner[card].astype(jnp.int32)
        board = state.board
        card_slot, size, _, top = _membership(board)
        top, size = top.reshape(2, NUM_SLOTS), size.reshape(2, NUM_SLOTS)
        my_size = jnp.where(controller == 0, size[0], size[1])[: A.FIELD_SLOTS]
        my_kind = self._card(state, "kind", jnp.where(controller == 0, top[0], top[1]))
        # Digimon cards by (battle slot, stack position): one scatter of the C cards.
        local = card_slot - controller * NUM_SLOTS
        pos = board.position.astype(jnp.int32)
        grid = A.FIELD_SLOTS * A.SOURCE_STRIDE
        placed = (card_slot >= 0) & (local >= 0) & (local < A.FIELD_SLOTS)
        placed &= pos < A.SOURCE_STRIDE
        dest = jnp.where(placed, local * A.SOURCE_STRIDE + pos, grid)
        kind = self.cards["kind"][board.definition]  # [C]
        is_digimon = jnp.zeros(grid + 1, jnp.bool_).at[dest].set(kind == DIGIMON)[:grid]
        is_digimon = is_digimon.reshape(A.FIELD_SLOTS, A.SOURCE_STRIDE)
        under = jnp.arange(A.SOURCE_STRIDE)[None, :] < (my_size - 1)[:, None]
        which = is_digimon & under & (my_kind[: A.FIELD_SLOTS] == DIGIMON)[:, None]
        selecting = state.board.phase == PHASE["select_source"]
        return which & self._has_room(state, controller) & (state.selection.card >= 0) & selecting

    def _select_errors(self, state: DigimonState) -> jax.Array:
        """Codes of every id in a selection phase: the ids of :meth:`selection_choices`, and 62
        to decline an optional or "up to" row (never in SelectMaterial: the DNA digivolution
        was declared by the player and completes)."""
        flags = self._sel_col(state, "flags").astype(jnp.int32)
        may_decline = (flags & (FLAG_OPTIONAL | FLAG_UP_TO)) != 0
        may_decline &= state.board.phase != PHASE["select_material"]
        if self._budget_rows:
            # A budget row picks at least one (rules 1-3-6); 62 then ends the picking.
            budget = self._sel_col(state, "max_total_dp") >= 0
            may_decline &= ~budget | jnp.any(self._picked_slots(state))
        # The order of triggers and the mulligan are decisions, not an effect to decline; an
        # optional row that chooses nothing is declined in its confirm choice.
        may_decline &= (state.selection.stage == CHOICE_ROW) | (
            state.selection.stage == CHOICE_CONFIRM
        )
        ids = jnp.arange(A.NUM_ACTIONS)
        legal = self.selection_choices(state) | ((ids == A.LAYOUT.start("pass")) & may_decline)
        return jnp.where(legal, 0, CODES["not_a_valid_selection"])

    def selection_choices(self, state: DigimonState) -> jax.Array:
        """bool[2120]: the ids that choose in the pending selection now (the spec's "Selection
        Conventions", G4). SelectTarget: 100 + i own battle slot, 112 + i the opponent's;
        SelectMaterial: 100 + i; SelectSource: 2000 + field * 10 + source; SelectHand: 30 + i
        (hand index) to trash a card (the spec's "Trash From Hand" range), i to choose it for
        anything else (play_free); SelectReveal: 30 + i (position in ``revealed``); SelectTrash:
        130 + i (trash position, 0 = the oldest); SelectSecurity: 40 + i own, 50 + i the
        opponent's (i-th card from the top); SelectEffectChoice: 1000 + i (branch i). All False
        outside the selection phases."""
        parts = self._selection_parts(state)
        out, end = [], 0
        for start, values in parts:  # static, increasing, non-overlapping ranges
            out += [jnp.zeros(start - end, jnp.bool_), values]
            end = start + values.shape[0]
        out.append(jnp.zeros(A.NUM_ACTIONS - end, jnp.bool_))
        return jnp.concatenate(out)

    def has_selection_choice(self, state: DigimonState) -> jax.Array:
        """bool[]: ``any(selection_choices(state))``, without building the 2120 ids."""
        return jnp.any(jnp.stack([any_along(v) for _, v in self._selection_parts(state)]))

    def _selection_parts(self, state: DigimonState) -> list[tuple[int, jax.Array]]:
        """The choice ranges of :meth:`selection_choices` as ``(first id, bool[n])`` pairs (a
        concatenation of static slices: no 2120-wide gather per range)."""
        controller = self.decider(state)
        targets = self.selection_targets(state)  # [2, 12]
        own = jnp.where(controller == 0, targets[0], targets[1])
        theirs = jnp.where(controller == 0, targets[1], targets[0])
        op, target = self._sel_col(state, "op"), self._sel_col(state, "target")
        hand = self.hand_choices(state)
        trashing = op == OP_TRASH_FROM_HAND
        security = self.security_choices(state)
        on_own = target == TARGET_PLAYER
        none = jnp.zeros(SECURITY_SLOTS, jnp.bool_)
        ids_30_59 = (
            (hand & trashing)
            | jnp.pad(self.reveal_choices(state), (0, 30 - REVEAL_SLOTS))
            | jnp.concatenate([none, security & on_own, security & ~on_own])
        )
        return [
            (0, hand & ~trashing),
            (30, ids_30_59),
            (100, own | self.material_choices(state)),
            (112, theirs),
            (130, self.trash_choices(state)),
            (1000, self.branch_choices(state)),
            (A.LAYOUT.start("source"), self.source_choices(state).reshape(-1)),
        ]

    def _sel_col(self, state: DigimonState, name: str) -> jax.Array:
        card = jnp.maximum(state.selection.card.astype(jnp.int32), 0)
        row = jnp.maximum(state.selection.row.astype(jnp.int32), 0)
        return self.cards[f"effects.{name}"][state.board.definition[card], row]

    def _sel_matches(self, state: DigimonState, cards: jax.Array) -> jax.Array:
        """bool[...]: ``cards`` (instances, -1 = none) pass the pending row's card filter (its
        kinds, colors, play costs, level bounds and name text: the host table of
        :func:`~tcgjax.games.digimon.state._card_filters`, one lookup per card)."""
        card = jnp.maximum(state.selection.card.astype(jnp.int32), 0)
        row = jnp.maximum(state.selection.row.astype(jnp.int32), 0)
        source = state.board.definition[card].astype(jnp.int32)
        passes = self._card_filters.matches(source, row, self._definition(state, cards))
        return (cards >= 0) & passes

    def _selecting(self, state: DigimonState, phase: str) -> jax.Array:
        return (state.board.phase == PHASE[phase]) & (state.selection.card >= 0)

    def hand_choices(self, state: DigimonState) -> jax.Array:
        """bool[30] in SelectHand: the controller's hand cards the row may take: any card to
        trash (trash_from_hand); a Digimon or Tamer passing the filter, with a free battle
        slot (play_free)."""
        controller = self.decider(state)
        hand = self.hand(state, controller)
        kind = self._card(state, "kind", hand)
        playable = ((kind == DIGIMON) | (kind == TAMER)) & self._has_room(state, controller)
        which = jnp.where(
            self._sel_col(state, "op") == OP_PLAY_FREE,
            self._sel_matches(state, hand) & playable,
            hand >= 0,
        )
        return which & self._selecting(state, "select_hand")

    def reveal_choices(self, state: DigimonState) -> jax.Array:
        """bool[10] in SelectReveal: the cards revealed by the row (not a security card being
        checked) that pass its filter, by position in ``revealed``; while the cards left go
        under the deck (stage ``bottom_order``), every one of them."""
        revealed = zones.zone_slots(state.board, self.layout.zone_index("revealed"), REVEAL_SLOTS)
        which = jnp.where(
            state.selection.stage == CHOICE_BOTTOM,
            revealed >= 0,
            self._sel_matches(state, revealed),
        )
        which &= revealed != state.checking
        return which & self._selecting(state, "select_reveal")

    def trash_choices(self, state: DigimonState) -> jax.Array:
        """bool[50] in SelectTrash: the controller's trash cards (by position, 0 = the first
        trashed) that pass the row's filter."""
        controller = self.decider(state)
        trash = zones.zone_slots(state.board, zone_of("trash", controller), TRASH_SLOTS)
        # play_from_trash: a Digimon or Tamer, with a free battle slot.
        kind = self._card(state, "kind", trash)
        playable = ((kind == DIGIMON) | (kind == TAMER)) & self._has_room(state, controller)
        playable |= self._sel_col(state, "op") != OP_PLAY_FROM_TRASH
        return self._sel_matches(state, trash) & playable & self._selecting(state, "select_trash")

    def _security_zone(self, state: DigimonState) -> jax.Array:
        """The security stack a trash_security row chooses from (the controller's or theirs)."""
        controller = self.decider(state)
        own = self._sel_col(state, "target") == TARGET_PLAYER
        return zone_of("security", jnp.where(own, controller, 1 - controller))

    def security_choices(self, state: DigimonState) -> jax.Array:
        """bool[10] in SelectSecurity: the i-th card from the top of the chosen stack exists."""
        count = zones.zone_count(state.board, self._security_zone(state))
        return (jnp.arange(SECURITY_SLOTS) < count) & self._selecting(state, "select_security")

    def branch_choices(self, state: DigimonState) -> jax.Array:
        """bool[Q] in SelectEffectChoice (ids 1000 + i), by the selection's stage: branch i of the
        choose_one row (its row + 1 + i); the i-th simultaneous triggered effect to resolve
        next (:meth:`trigger_order_choices`); keep (1000) or redraw (1001) the opening hand;
        take (1000) an optional row that chooses nothing (62 declines it)."""
        stage = state.selection.stage
        count = jnp.select(
            [stage == CHOICE_ORDER, stage == CHOICE_MULLIGAN, stage == CHOICE_CONFIRM],
            [self.trigger_order_choices(state), 2, 1],
            self._sel_col(state, "count").astype(jnp.int32),
        )
        assert MAX_BRANCHES <= QUEUE_SIZE
        return (jnp.arange(QUEUE_SIZE) < count) & self._selecting(state, "select_effect_choice")

    def _reveal(self, state: DigimonState, player, n) -> DigimonState:
        """The top ``n`` cards of ``player``'s deck go to ``revealed`` (fewer when it runs out),
        the first revealed lowest, in one move (``zones.draw_n``)."""
        deck = zone_of("deck", player)
        n = jnp.minimum(jnp.clip(n, 0, MAX_REVEAL), zones.zone_count(state.board, deck))
        revealed = self.layout.zone_index("revealed")
        return state.replace(board=zones.draw_n(self.layout, state.board, deck, revealed, n).board)

    def _put_back_revealed(self, state: DigimonState, doit, card, row, slot, resume):
        """When ``doit``, the cards a reveal_add row (``row`` of card instance ``card``, acting
        from ``slot``) leaves revealed go under their owner's deck in the order the owner
        chooses (official rule): one card at once; two or more wait on SelectReveal, stage
        ``bottom_order`` (30 + i puts revealed card i under the deck next, so the first chosen
        ends highest and the last card left deepest), then play goes back to ``resume``."""
        revealed = zones.zone_slots(state.board, self.layout.zone_index("revealed"), REVEAL_SLOTS)
        left = jnp.sum((revealed >= 0) & (revealed != state.checking), dtype=jnp.int32)
        asks = doit & (left >= 2)
        asked = state.replace(
            selection=Selection.open(
                card, row, slot, left=left - 1, resume=resume, stage=CHOICE_BOTTOM
            ),
            board=state.board.replace(phase=jnp.int8(PHASE["select_reveal"])),
        )
        return tree_where(asks, asked, self._unreveal(state, doit & ~asks))

    def _unreveal(self, state: DigimonState, doit) -> DigimonState:
        """The cards a reveal_add row left in ``revealed`` go to the bottom of their owner's
        deck (the top one first: the first revealed ends deepest); a security card being
        checked stays. Reached with one card left, or after the owner's order
        (:meth:`_put_back_revealed`)."""

        def hide_one(i, board):
            top = zones.top_card(board, self.layout.zone_index("revealed"))
            owner = board.owner[jnp.maximum(top, 0)].astype(jnp.int32)
            moved = zones.move_card(
                self.layout, board, jnp.maximum(top, 0), zone_of("deck", owner), zones.BOTTOM
            ).board
            return tree_where(doit & (top >= 0) & (top != state.checking), moved, board)

        return state.replace(board=jax.lax.fori_loop(0, MAX_REVEAL, hide_one, state.board))

    def _drop_gated(self, state: DigimonState, doit, card, row) -> DigimonState:
        """Take the row gated by row ``row`` of card instance ``card`` ("if you do", the flag
        ``gates_next``: the card's next row, waiting first in the queue) out unresolved when
        ``doit`` (the gating row was declined or had nothing to choose)."""
        queue = state.queue
        front = (queue.card[0].astype(jnp.int32) == card.astype(jnp.int32)) & (
            queue.row[0].astype(jnp.int32) == row.astype(jnp.int32) + 1
        )
        return state.replace(queue=tree_where(doit & front, queue.pop(), queue))

    def _select(self, state: DigimonState, action):
        """Apply the pending row to the chosen permanent, card or branch (or decline with 62);
        the selection ends when its count is reached or nothing more can be chosen."""
        controller = self.decider(state)
        decline = action == A.LAYOUT.start("pass")
        suspended_before = state.suspended
        phase = state.board.phase
        in_phase = lambda name: phase == PHASE[name]  # noqa: E731
        theirs = action >= 112
        player = jnp.where(theirs, 1 - controller, controller)
        slot = jnp.clip(jnp.where(theirs, action - 112, action - 100), 0, A.FIELD_SLOTS - 1)
        op, amount = self._sel_col(state, "op"), self._sel_col(state, "amount").astype(jnp.int32)
        # A max_total_dp row marks its picks (``selection.picked``) and deletes them together
        # when the picking ends (below); any other row applies to each pick at once.
        budget = jnp.bool_(False)
        if self._budget_rows:
            budget = (self._sel_col(state, "max_total_dp") >= 0) & in_phase("select_target")
        applied = self._apply_to(state, op, amount, player, slot)
        marks = jnp.maximum(state.selection.picked.astype(jnp.int32), 0) | (1 << slot)
        applied = tree_where(
            budget,
            state.replace(selection=state.selection.replace(picked=marks.astype(jnp.int16))),
            applied,
        )
        board = state.board
        # A card moves (SelectHand trashing, SelectReveal / SelectTrash to the hand,
        # SelectSecurity to the trash) or is played free (SelectHand play_free, SelectSource).
        hand_card = self.hand(state, controller)[jnp.clip(action % 30, 0, A.HAND_SLOTS - 1)]
        revealed = zones.card_at(board, self.layout.zone_index("revealed"), action - 30)
        from_trash = zones.card_at(board, zone_of("trash", controller), action - 130)
        security = self._security_zone(state)
        from_top = jnp.where(action >= 50, action - 50, action - 40)
        checked = zones.card_at(board, security, zones.zone_count(board, security) - 1 - from_top)
        # The order of the cards a reveal_add row leaves: the chosen one goes under the deck.
        bottom = state.selection.stage == CHOICE_BOTTOM
        revealed_owner = board.owner[jnp.maximum(revealed, 0)].astype(jnp.int32)
        bottomed = state.replace(
            board=zones.move_card(
                self.layout,
                board,
                jnp.maximum(revealed, 0),
                zone_of("deck", revealed_owner),
                zones.BOTTOM,
            ).board
        )
        field, position = jnp.divmod(
            jnp.clip(action - A.LAYOUT.start("source"), 0, 119), A.SOURCE_STRIDE
        )
        source = zones.card_at(board, slot_zone(controller, field), position)
        in_hand = in_phase("select_hand")
        moving = jnp.select(
            [in_hand, in_phase("select_reveal"), in_phase("select_trash")],
            [hand_card, revealed, from_trash],
            checked,
        )
        to_zone = jnp.select(
            [in_phase("select_security"), in_hand],
            [zone_of("trash", board.owner[jnp.maximum(moving, 0)]), zone_of("trash", controller)],
            zone_of("hand", controller),
        )
        moved = state.replace(
            board=zones.move_card(self.layout, board, jnp.maximum(moving, 0), to_zone).board
        )
        from_trash_play = in_phase("select_trash") & (op == OP_PLAY_FROM_TRASH)
        plays = in_phase("select_source") | (in_hand & (op == OP_PLAY_FREE)) | from_trash_play
        chosen = jnp.select([in_hand, from_trash_play], [hand_card, from_trash], source)
        flags = self._sel_col(state, "flags").astype(jnp.int32)
        played = self._put_into_play(
            state, jnp.maximum(chosen, 0), controller, quiet=(flags & FLAG_NO_ON_PLAY) != 0
        )
        moves = (in_hand & (op == OP_TRASH_FROM_HAND)) | in_phase("select_reveal")
        moves |= (in_phase("select_trash") & ~from_trash_play) | in_phase("select_security")
        applied = tree_where(plays, played, tree_where(moves, moved, applied))
        applied = tree_where(in_phase("select_reveal") & bottom, bottomed, applied)
        # SelectEffectChoice: the chosen branch row resolves next (front of the queue); a taken
        # optional row comes back to the front, taken (GROUP_CONFIRMED: it does not ask again).
        confirm = state.selection.stage == CHOICE_CONFIRM
        branch_row = jnp.where(
            confirm, state.selection.row, state.selection.row + 1 + (action - 1000)
        )
        branched = state.replace(
            queue=state.queue.push_front(
                state.selection.card,
                branch_row,
                state.selection.slot,
                jnp.where(confirm, GROUP_CONFIRMED, -1),
            )
        )
        applied = tree_where(in_phase("select_effect_choice"), branched, applied)
        # SelectMaterial: the first pick is remembered; the second completes the DNA digivolution.
        first = state.selection.slot.astype(jnp.int32)
        merged = tree_where(
            first < 0,
            state.replace(selection=state.selection.replace(slot=slot.astype(jnp.int8))),
            self._dna_merge(state, controller, first, slot),
        )
        applied = tree_where(in_phase("select_material"), merged, applied)
        # "You may suspend this card to ...": a choice (not a decline) pays the cost, suspending
        # the permanent the row acts from.
        pays = (self._sel_col(state, "flags").astype(jnp.int32) & FLAG_COST_SUSPEND_SELF) != 0
        pays &= in_phase("select_target") & (state.selection.slot >= 0)
        source_slot = jnp.clip(state.selection.slot.astype(jnp.int32), 0, NUM_SLOTS - 1)
        owner = state.board.owner[jnp.maximum(state.selection.card.astype(jnp.int32), 0)]
        paid = applied.suspended[owner, source_slot] | pays
        applied = applied.replace(suspended=applied.suspended.at[owner, source_slot].set(paid))
        # "If you do" (gates_next): a declined row takes its gated next row out of the queue.
        gated = decline & ((flags & FLAG_GATES_NEXT) != 0)
        state = tree_where(
            decline,
            self._drop_gated(state, gated, state.selection.card, state.selection.row),
            applied,
        )
        state = self._push_suspended(state, suspended_before)
        left = jnp.where(decline, 0, state.selection.left - 1).astype(jnp.int8)
        state = state.replace(selection=state.selection.replace(left=left))
        more = self.has_selection_choice(state)
        done = state.replace(
            selection=Selection.none(),
            board=state.board.replace(phase=state.selection.resume),
        )
        sel = state.selection
        done = self._put_back_revealed(
            done, op == OP_REVEAL_ADD, sel.card, sel.row, sel.slot, sel.resume
        )
        if self._budget_rows:
            done = when_any(
                budget,
                lambda s: self._delete_picked(s, 1 - controller, self._picked_slots(state)),
                done,
            )
        return tree_where((left <= 0) | ~more, done, state)
