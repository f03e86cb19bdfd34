"""The effect interpreter: card effects are rows of data (timing, condition, op, target,
arguments, flags); triggers queue them (:meth:`EffectInterpreter._push`), one executor runs
any row as masked updates of the state (no branch per card), timed modifiers live in the
lasting records, and activated [Main] rows are the 1000+ ids.

A room of :class:`~tcgjax.games.digimon.rules.DigimonRules` (a mixin: its methods read the
rules object's tables, set up in ``rules.py``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from tcgjax.core import zones
from tcgjax.core.arrays import materialize, min_along, take, take_static
from tcgjax.core.effects import EffectQueue, Selection
from tcgjax.core.primitives import in_force, last_turn
from tcgjax.core.tree import tree_where, when_any
from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon.cards import (
    DIGIMON,
    MAX_BURST,
    MAX_EFFECTS,
)
from tcgjax.games.digimon.state import (
    CHOICE_CONFIRM,
    COND_ATTACKING_A_DIGIMON,
    COND_ATTACKING_THE_PLAYER,
    COND_HAND_AT_LEAST,
    COND_HAND_AT_MOST,
    COND_LEVEL_AT_LEAST,
    COND_MIN_SOURCES,
    COND_NONE,
    COND_OPP_DID_NOT_ATTACK,
    COND_OPP_LEVEL_AT_LEAST,
    COND_OPP_NO_SOURCE,
    COND_SECURITY_AT_LEAST,
    COND_SECURITY_AT_MOST,
    COND_SECURITY_AT_MOST_OPPONENTS,
    COND_TRASH_AT_LEAST,
    DURATION_CONTINUOUS,
    FLAG_COST_SUSPEND_SELF,
    FLAG_ELSE_NEXT,
    FLAG_GATES_NEXT,
    FLAG_OPT,
    FLAG_OPTIONAL,
    IN_BATTLE_AREA,
    LASTING_DP,
    LASTING_DURATION,
    LASTING_KEYWORD,
    LASTING_RESTRICT,
    LASTING_SA,
    LASTING_SECURITY_DP,
    MAX_CHECKS,
    MAX_DRAW,
    MAX_TRASHED_SOURCES,
    MEMORY_LIMIT,
    NUM_SLOTS,
    OP_ACTIVATE_MAIN,
    OP_ADD_SELF_TO_HAND,
    OP_BOUNCE,
    OP_CHOOSE_ONE,
    OP_DE_DIGIVOLVE,
    OP_DELETE,
    OP_DP,
    OP_DRAW,
    OP_GRANT_KEYWORD,
    OP_MEMORY,
    OP_MILL,
    OP_PLAY_SELF,
    OP_RECOVERY,
    OP_RESTRICT,
    OP_RETURN_TO_DECK,
    OP_REVEAL_ADD,
    OP_SECURITY_ATTACK,
    OP_SUSPEND,
    OP_TRASH_SECURITY_TOP,
    OP_TRASH_SOURCES,
    OP_UNSUSPEND,
    PHASE,
    QUEUE_SIZE,
    SELECTION_OF_OP,
    STAGE_CHECKS,
    TARGET_ALL_OPP,
    TARGET_ALL_OWN,
    TARGET_CHOOSE_OPP,
    TARGET_CHOOSE_OPP_NO_SOURCE,
    TARGET_CHOOSE_OPP_SUSPENDED,
    TARGET_CHOOSE_OWN,
    TARGET_OPPONENT,
    TARGET_SECURITY,
    TARGET_SELF,
    TRIGGER,
    WHERE_INH,
    WHERE_MAIN,
    DigimonState,
    Permanents,
    _first_error,
    _highest_battle_level,
    _in_window,
    _membership,
    slot_zone,
    zone_of,
)


class EffectInterpreter:
    """The effect interpreter: the trigger queue, timed modifiers, the row executor, [Main] rows."""

    # -- effect interpreter: trigger queue, timed modifiers, primitives ----------------------------

    @staticmethod
    def _one_slot(player, slot) -> jax.Array:
        """bool[2, S]: only ``slot`` of ``player``."""
        return (jnp.arange(2)[:, None] == player) & (jnp.arange(NUM_SLOTS)[None, :] == slot)

    @staticmethod
    def _all_slots(player) -> jax.Array:
        """bool[2, S]: every permanent slot of ``player``."""
        return jnp.broadcast_to(jnp.arange(2)[:, None] == player, (2, NUM_SLOTS))

    def _fires_on(self, trigger: str) -> bool:
        """Host-known: some card of the registry has a row of ``trigger`` (a push of a trigger
        no card has is left out of the program)."""
        return bool(np.any(self._triggered[TRIGGER[trigger]]["row"] >= 0))

    def _push_suspended(
        self, state: DigimonState, before: jax.Array, kind: jax.Array | None = None
    ) -> DigimonState:
        """The trigger "when an opposing Digimon becomes suspended": a player's Digimon in a
        battle area that was unsuspended in ``before`` (bool[2, S]) and is suspended now fires the
        ``opponent_digimon_suspended`` rows of every permanent of that player's opponent (one
        event, however many of their Digimon it suspended). ``kind``: the permanents' kinds
        (int[2, S]) when the caller has them for this board already."""
        if not self._fires_on("opponent_digimon_suspended"):
            return state
        if kind is None:
            tops, _ = self.stacks(state)
            kind = self._card(state, "kind", tops)
        digimon = kind == DIGIMON
        newly = state.suspended & ~before & digimon & jnp.asarray(IN_BATTLE_AREA)
        lost = jnp.any(newly, axis=1)  # [2]: the player had a Digimon suspended
        rivals = jnp.broadcast_to(lost[::-1, None], (2, NUM_SLOTS))
        return when_any(
            jnp.any(lost),
            lambda s: self._push(s, TRIGGER["opponent_digimon_suspended"], rivals),
            state,
        )

    def _deletion_pair(self, deleted: jax.Array) -> tuple:
        """The ``(trigger, slots)`` pairs of "when one of your Digimon is deleted" and "when one
        of your opponent's Digimon is deleted" for the Digimon ``deleted`` (bool[2, S]): the rows
        of every permanent of each player who lost one, and of every permanent of that player's
        opponent but those deleted in the same event (Q681, Q683), fire with the [On Deletion]
        rows (one group). A trigger no card has is left out (host-known)."""
        lost = jnp.any(deleted, axis=1)
        pairs: tuple = ()
        if self._fires_on("own_digimon_deleted"):
            own = jnp.broadcast_to(lost[:, None], (2, NUM_SLOTS))
            pairs += (TRIGGER["own_digimon_deleted"], own)
        if self._fires_on("opponent_digimon_deleted"):
            rivals = jnp.broadcast_to(lost[::-1, None], (2, NUM_SLOTS)) & ~deleted
            pairs += (TRIGGER["opponent_digimon_deleted"], rivals)
        return pairs

    def _push(self, state: DigimonState, trigger: int, slots: jax.Array, *more) -> DigimonState:
        """Queue the effect rows that fire on ``trigger`` in the permanent ``slots`` (bool[2, S]):
        each top card's ``main`` rows and its digivolution cards' ``inherited`` rows. ``more``:
        further ``trigger, slots`` pairs that fire at the same time (one queue group; a card's
        rows of the first trigger first).

        Order (simultaneous triggers): the turn player's first, then slot by slot, in each stack
        the top card first and then the cards under it from the top down. The entries share a
        queue group: with ``trigger_order="chosen"`` (G10, the official rule) each player picks
        the order of their own when it can matter (:meth:`_resolve_one`); this order is the
        ``"fixed"`` option's."""
        board = state.board
        card_slot, size, is_top, _ = _membership(board)
        on_field = card_slot >= 0
        flat = jnp.maximum(card_slot, 0)
        # Cards in the breeding area never fire (their effects do not activate; IN_BATTLE_AREA):
        # a Digimon digivolved there has no [When Digivolving], a Digimon raised there no
        # [Start of Your Turn].
        in_battle = on_field & jnp.asarray(IN_BATTLE_AREA)[flat % NUM_SLOTS]
        pairs = ((trigger, slots), *zip(more[::2], more[1::2], strict=True))
        fires, row = [], []
        for trig, trig_slots in pairs:
            chosen = in_battle & trig_slots.reshape(-1)[flat]
            # Only the rows of this trigger: [C, Rt] (``_triggered``), not all R rows of every card.
            table = self._triggered[trig]
            trig_row = jnp.asarray(table["row"])[board.definition].astype(jnp.int32)
            where = jnp.asarray(table["where"])[board.definition]
            placed = (is_top[:, None] & (where == WHERE_MAIN)) | (
                (on_field & ~is_top)[:, None] & (where == WHERE_INH)
            )
            # A row outside its window ([Your Turn] on the opponent's turn) or whose [Once Per
            # Turn] use is spent does not trigger at all (no entry, no trigger-order choice).
            safe_row = jnp.maximum(trig_row, 0)
            window = self.cards["effects.window"][board.definition[:, None], safe_row]
            flags = self.cards["effects.flags"][board.definition[:, None], safe_row]
            mine = (card_slot // NUM_SLOTS == board.active_player)[:, None]
            window_ok = _in_window(window, mine)
            used = (state.opt_used.astype(jnp.int32)[:, None] >> safe_row) & 1
            spent = ((flags.astype(jnp.int32) & FLAG_OPT) != 0) & (used == 1)
            fires.append(chosen[:, None] & placed & (trig_row >= 0) & window_ok & ~spent)
            row.append(trig_row)
        fires, row = jnp.concatenate(fires, axis=1), jnp.concatenate(row, axis=1)
        depth = jnp.where(on_field, size[flat] - 1 - board.position, 0).astype(jnp.int32)
        others = (card_slot // NUM_SLOTS != board.active_player).astype(jnp.int32)
        priority = others * 4096 + (card_slot % NUM_SLOTS) * 64 + depth  # [C]
        return self._enqueue(
            state,
            fires,
            priority,
            jnp.arange(self.num_cards),
            jnp.where(on_field, card_slot % NUM_SLOTS, -1),
            row,
            # Triggered together: their controller may choose their order (G10, ``_resolve_one``).
            group=state.queue.next_group(),
        )

    def _push_card(self, state: DigimonState, card, where: int, trigger: int) -> DigimonState:
        """Queue the rows of one card (an Option being used, a security card being checked)."""
        definition = state.board.definition[card]
        rows = jnp.arange(self.cards["effects.where"].shape[1])
        own = (
            (rows < self.cards["effects.num_rows"][definition])
            & (self.cards["effects.where"][definition] == where)
            & (self.cards["effects.trigger"][definition] == trigger)
        )
        return self._enqueue(state, own[None, :], jnp.zeros(1, jnp.int32), jnp.reshape(card, 1), -1)

    def _enqueue(
        self, state: DigimonState, fires, priority, cards, card_slot, rows=None, group=-1
    ) -> DigimonState:
        """Append the ``fires`` ``[N, W]`` entries (effect rows of the card instances ``cards``
        ``[N]``, acting from ``card_slot`` ``[N]`` or a scalar), lowest ``priority`` ``[N]``
        first (then by column), after the queue. Column ``j`` of card ``n`` is effect row
        ``rows[n, j]`` (``rows`` int ``[N, W]``, ascending in ``j``; default: row ``j``).
        ``group``: the queue group of the new entries (triggered together), -1 when their order
        is settled (one card's own rows).

        The first ``QUEUE_SIZE`` keys are taken by repeated ``argmin``: a few reductions over
        the ``N * R`` keys, where a sort of them costs 16 times more under ``vmap`` on CPU
        (7.9 ms against 0.5 ms at batch 128, C = 108: benchmarks/RESULTS.md)."""
        num_rows = fires.shape[1]
        big = jnp.int32(1 << 30)
        key = jnp.where(fires, priority[:, None] * num_rows + jnp.arange(num_rows), big).reshape(-1)
        flat = jnp.arange(key.shape[0])

        def take_smallest(k, carry):
            key, order = carry
            # Keys are distinct: the smallest by a min, its index by a second min (two simple
            # one-kernel reductions, ``min_along``, instead of an argmin's value-then-index one).
            smallest = min_along(key)
            i = min_along(jnp.where(key == smallest, flat, key.shape[0]).astype(jnp.int32))
            order = order.at[k].set(jnp.where(smallest < big, i, -1))
            return jnp.where(flat == i, big, key), order

        order = jax.lax.fori_loop(
            0, QUEUE_SIZE, take_smallest, (key, jnp.full(QUEUE_SIZE, -1, jnp.int32))
        )[1]
        new_valid = order >= 0
        entry = jnp.maximum(order, 0) // num_rows
        new_card = jnp.where(new_valid, jnp.asarray(cards, jnp.int32)[entry], -1)
        column = order % num_rows
        row_id = column if rows is None else jnp.asarray(rows, jnp.int32)[entry, column]
        new_row = jnp.where(new_valid, row_id, -1)
        slots = jnp.broadcast_to(jnp.asarray(card_slot, jnp.int32), (fires.shape[0],))
        new_slot = jnp.where(new_valid, slots[entry], -1)
        n = jnp.sum(state.queue.card >= 0)
        i = jnp.arange(QUEUE_SIZE)
        j = jnp.clip(i - n, 0, QUEUE_SIZE - 1)
        keep = i < n
        queue = state.queue
        return state.replace(
            queue=EffectQueue(
                card=jnp.where(keep, queue.card, new_card[j]).astype(jnp.int16),
                row=jnp.where(keep, queue.row, new_row[j]).astype(jnp.int8),
                slot=jnp.where(keep, queue.slot, new_slot[j]).astype(jnp.int8),
                group=jnp.where(keep, queue.group, jnp.where(new_valid[j], group, -1)).astype(
                    jnp.int8
                ),
            )
        )

    def _execute(self, state: DigimonState, card, row, slot, confirmed=False) -> DigimonState:
        """One effect row, applied as selects over the state (a table, not a branch per op).

        The row's window and condition are checked when it resolves, and its [Once Per Turn]
        use. A row that chooses (``choose_*`` targets; ``play_from_sources``) opens a selection
        phase (``SelectTarget`` / ``SelectSource``) decided by the row's controller, or fizzles
        without a valid choice. The others act at once: ``memory`` (for the controller),
        ``draw`` (<Draw N>), ``unsuspend`` / ``suspend`` of ``self``, ``dp_mod`` /
        ``security_attack_mod`` on ``self``, ``all_own_digimon`` or ``own_security_digimon`` for a
        duration (a timed modifier), ``play_self`` (a security Tamer plays itself for free),
        ``activate_main`` (a security Option's [Main] rows), ``recovery`` (<Recovery +N (Deck)>;
        then [Security Added] rows of the controller fire), ``mill``, ``trash_security_top``.

        An ``optional`` row that chooses nothing first asks its controller (SelectEffectChoice,
        stage ``confirm``: 1000 takes it, 62 declines); taken, it comes back to the front of the
        queue and resolves with ``confirmed`` (bool[]), paying its ``cost_suspend_self``."""
        board = state.board
        suspended_before = state.suspended
        definition = board.definition[card]
        col = lambda name: self.cards[f"effects.{name}"][definition, row]  # noqa: E731
        op, target, duration = col("op"), col("target"), col("duration")
        amount = col("amount").astype(jnp.int32)
        controller = board.owner[card].astype(jnp.int32)
        active = board.active_player.astype(jnp.int32)
        slot = slot.astype(jnp.int32)
        tops, size = self.stacks(state)
        # Conditions checked when the row resolves.
        perm_kind = self._card(state, "kind", tops)
        opp = 1 - controller
        opp_no_source = jnp.any(
            (jnp.where(opp == 0, perm_kind[0], perm_kind[1]) == DIGIMON)
            & (jnp.where(opp == 0, size[0], size[1]) == 1)
            & IN_BATTLE_AREA
        )
        condition, value = col("condition"), col("condition_value").astype(jnp.int32)
        perm_level_all = self._card(state, "level", tops).astype(jnp.int32)
        opp_level = _highest_battle_level(perm_kind, size, perm_level_all)[opp]
        safe_slot = jnp.clip(slot, 0, NUM_SLOTS - 1)
        my_size = jnp.where(controller == 0, size[0], size[1])[safe_slot]
        my_security = zones.zone_count(board, zone_of("security", controller))
        their_security = zones.zone_count(board, zone_of("security", 1 - controller))
        my_trash = zones.zone_count(board, zone_of("trash", controller))
        my_hand = zones.zone_count(board, zone_of("hand", controller))
        # The acting permanent's level (its top card's); 0 for a row with no permanent (slot -1).
        perm_level = perm_level_all
        my_level = jnp.where(
            slot >= 0, jnp.where(controller == 0, perm_level[0], perm_level[1])[safe_slot], 0
        ).astype(jnp.int32)
        # Its attack aims at an opposing Digimon (a slot, not the player): [When Attacking] rows
        # resolve at the declaration, before any block changes the target.
        target_slot = state.attack_target.astype(jnp.int32)
        own_attack = (
            (slot >= 0) & (controller == active) & (state.attacker.astype(jnp.int32) == slot)
        )
        attacking_digimon = own_attack & (target_slot >= 0) & (target_slot < A.FIELD_SLOTS)
        attacking_player = own_attack & (target_slot == A.TARGET_PLAYER)
        cond_ok = (
            (condition == COND_NONE)
            | ((condition == COND_OPP_NO_SOURCE) & opp_no_source)
            | ((condition == COND_MIN_SOURCES) & (my_size - 1 >= value))
            | ((condition == COND_SECURITY_AT_LEAST) & (my_security >= value))
            | ((condition == COND_SECURITY_AT_MOST) & (my_security <= value))
            | ((condition == COND_OPP_DID_NOT_ATTACK) & (controller != active) & ~state.attacked)
            | ((condition == COND_LEVEL_AT_LEAST) & (my_level >= value))
            | ((condition == COND_TRASH_AT_LEAST) & (my_trash >= value))
            | ((condition == COND_HAND_AT_LEAST) & (my_hand >= value))
            | ((condition == COND_HAND_AT_MOST) & (my_hand <= value))
            | ((condition == COND_ATTACKING_A_DIGIMON) & attacking_digimon)
            | ((condition == COND_ATTACKING_THE_PLAYER) & attacking_player)
            | ((condition == COND_SECURITY_AT_MOST_OPPONENTS) & (my_security <= their_security))
            | ((condition == COND_OPP_LEVEL_AT_LEAST) & (opp_level >= value))
        )
        window = col("window")
        mine_now = controller == active
        window_ok = _in_window(window, mine_now)
        # [Once Per Turn]: a row of this card instance used this turn does not activate again.
        once = (col("flags").astype(jnp.int32) & FLAG_OPT) != 0
        bit = (jnp.uint8(1) << row.astype(jnp.uint8)).astype(jnp.uint8)
        used = (state.opt_used[card] & bit) != 0
        ok = cond_ok & window_ok & ~(once & used)
        # "You may suspend this card to ...": only while its permanent is unsuspended (the cost is
        # paid when the player chooses, ``_select``).
        pays = (col("flags").astype(jnp.int32) & FLAG_COST_SUSPEND_SELF) != 0
        safe = jnp.clip(slot, 0, NUM_SLOTS - 1)
        ok &= ~pays | ((slot >= 0) & ~state.suspended[controller, safe])
        # A row that chooses opens its selection phase (or fizzles without a valid choice):
        # SelectTarget for a choose_* target, else the op's own phase (SELECTION_OF_OP).
        # reveal_add reveals its cards first; they go to the bottom of the deck when the
        # selection ends (or at once when nothing among them can be chosen).
        own_phase = jnp.asarray(SELECTION_OF_OP)[op]
        chooses_target = (
            (target == TARGET_CHOOSE_OWN)
            | (target == TARGET_CHOOSE_OPP)
            | (target == TARGET_CHOOSE_OPP_NO_SOURCE)
            | (target == TARGET_CHOOSE_OPP_SUSPENDED)
        )
        chooses = (chooses_target | (own_phase >= 0)) & (col("count") > 0)
        # "You may ..." with nothing to choose: the controller is asked first (a declined row is
        # not used: its [Once Per Turn] stays available).
        may = ((col("flags").astype(jnp.int32) & FLAG_OPTIONAL) != 0) & ~chooses
        asks = ok & may & ~confirmed
        ok &= ~asks
        state = state.replace(
            opt_used=state.opt_used.at[card].set(
                jnp.where(ok & once, state.opt_used[card] | bit, state.opt_used[card])
            )
        )
        asked = Selection.open(
            card, row, slot, left=1, resume=state.board.phase, stage=CHOICE_CONFIRM
        )
        state = state.replace(
            selection=tree_where(asks, asked, state.selection),
            board=state.board.replace(
                phase=jnp.where(asks, PHASE["select_effect_choice"], state.board.phase).astype(
                    jnp.int8
                )
            ),
        )
        reveals = ok & (op == OP_REVEAL_ADD)
        state = when_any(reveals, lambda s: self._reveal(s, controller, amount), state)

        def open_selection(state):
            pending = state.replace(
                selection=Selection.open(
                    card,
                    row,
                    slot,
                    left=jnp.where(op == OP_CHOOSE_ONE, 1, col("count")),
                    resume=state.board.phase,
                ),
                board=state.board.replace(
                    phase=jnp.where(own_phase >= 0, own_phase, PHASE["select_target"]).astype(
                        jnp.int8
                    )
                ),
            )
            opens = ok & chooses & self.has_selection_choice(pending)
            put_back = self._put_back_revealed(
                state, reveals & ~opens, card, row, slot, state.board.phase
            )
            return tree_where(opens, pending, put_back)

        # Only a row that chooses can open a selection, and only a reveal leaves cards to put back.
        state = when_any((ok & chooses) | reveals, open_selection, state)
        # "If you do" (gates_next): a row that did not open its choice (it could not resolve,
        # or had nothing to choose) takes its gated next row out of the queue.
        gates = (col("flags").astype(jnp.int32) & FLAG_GATES_NEXT) != 0
        opened = state.selection.card >= 0
        state = self._drop_gated(state, gates & ~opened, card, row)
        # "If you don't" (else_next): its next row resolves only when this row was taken and had
        # nothing to choose; a choice opened, or the row not taken at all, drops it.
        elses = (col("flags").astype(jnp.int32) & FLAG_ELSE_NEXT) != 0
        state = self._drop_gated(state, elses & (opened | ~ok), card, row)
        ok &= ~chooses
        # The cost of a taken optional row that chooses nothing: its permanent is suspended (a
        # row that chooses pays when its choice is made, ``_select``).
        state = state.replace(
            suspended=state.suspended.at[controller, safe].set(
                state.suspended[controller, safe] | (ok & pays)
            )
        )

        # memory: + for the controller (the gauge is stored from the active player's side).
        memory = state.memory.astype(jnp.int32) + jnp.where(mine_now, amount, -amount)
        memory = jnp.where(ok & (op == OP_MEMORY), memory, state.memory)
        state = state.replace(memory=jnp.clip(memory, -MEMORY_LIMIT, MEMORY_LIMIT).astype(jnp.int8))

        # draw N from the controller's deck; recovery: N from the top of the deck onto security;
        # mill: N from the top of the deck into the trash (an empty deck ends the loop early: a
        # player loses to an empty deck only when the Draw phase finds it empty);
        # trash_security_top: N from the top of a security stack into its owner's trash (not a
        # check: no [Security] row, and an empty stack wins nothing).
        hand = zone_of("hand", controller)
        recover = ok & (op == OP_RECOVERY)
        mill = ok & (op == OP_MILL)
        strip = ok & (op == OP_TRASH_SECURITY_TOP)
        victim = jnp.where(target == TARGET_OPPONENT, opp, controller)
        deck = jnp.where(strip, zone_of("security", victim), zone_of("deck", controller))
        to_zone = jnp.select(
            [recover, mill, strip],
            [
                zone_of("security", controller),
                zone_of("trash", controller),
                zone_of("trash", victim),
            ],
            hand,
        )

        def draw(state):
            # The top N cards in one move, as N draws would (``zones.draw_n``).
            n = jnp.minimum(jnp.clip(amount, 0, MAX_DRAW), zones.zone_count(state.board, deck))
            before = zones.zone_count(state.board, zone_of("security", controller))
            state = state.replace(
                board=zones.draw_n(self.layout, state.board, deck, to_zone, n).board
            )
            added = zones.zone_count(state.board, zone_of("security", controller)) > before
            return tree_where(
                added,
                self._push(state, TRIGGER["security_added"], self._all_slots(controller)),
                state,
            )

        state = when_any(ok & ((op == OP_DRAW) | recover | mill | strip), draw, state)

        # unsuspend / suspend self.
        safe_slot = jnp.clip(slot, 0, NUM_SLOTS - 1)
        on_self = ok & (target == TARGET_SELF) & (slot >= 0)
        was = state.suspended[controller, safe_slot]
        now = jnp.where(on_self & (op == OP_UNSUSPEND), False, was)
        now = jnp.where(on_self & (op == OP_SUSPEND), True, now)
        state = state.replace(suspended=state.suspended.at[controller, safe_slot].set(now))
        # The stacks have not changed since perm_kind was read (only ``suspended`` and the piles).
        state = self._push_suspended(state, suspended_before, perm_kind)

        # play_self: a card (a security Tamer) plays itself for free, when there is room.
        plays = ok & (op == OP_PLAY_SELF) & self._has_room(state, controller)
        state = when_any(plays, lambda s: self._put_into_play(s, card, controller), state)
        # activate_main: the card's [Main] rows resolve next (a security Option; no color rule).
        state = when_any(
            ok & (op == OP_ACTIVATE_MAIN),
            lambda s: self._push_card(s, card, WHERE_MAIN, TRIGGER["main"]),
            state,
        )
        # add_self_to_hand: the checked security card goes to its owner's hand instead of the
        # trash (the check's end trashes only a card still revealed, ``_check_step``).
        revealed = self.layout.zone_index("revealed")
        to_hand = ok & (op == OP_ADD_SELF_TO_HAND) & (state.board.zone[card] == revealed)
        state = when_any(
            to_hand,
            lambda s: s.replace(
                board=zones.move_card(self.layout, s.board, card, zone_of("hand", controller)).board
            ),
            state,
        )

        # Timed DP / Security A. modifiers (and granted keywords) on self, on all own Digimon, on
        # own Security Digimon, or on all the opponent's Digimon.
        timed = ok & (duration != DURATION_CONTINUOUS)
        timed &= (op == OP_DP) | (op == OP_SECURITY_ATTACK) | (op == OP_GRANT_KEYWORD)
        timed &= (
            (target == TARGET_SELF)
            | (target == TARGET_ALL_OWN)
            | (target == TARGET_SECURITY)
            | (target == TARGET_ALL_OPP)
        )
        kind = jnp.select(
            [op == OP_GRANT_KEYWORD, target == TARGET_SECURITY, op == OP_DP],
            [LASTING_KEYWORD, LASTING_SECURITY_DP, LASTING_DP],
            LASTING_SA,
        )
        whose = jnp.where(target == TARGET_ALL_OPP, opp, controller)
        # A Security A. change that reaches the attacker during its security checks changes the
        # checks it has left (ST3-15's [Security]: the attacker checks one card fewer), never
        # below 0.
        reaches = (whose == active) & ((target != TARGET_SELF) | (slot == state.attacker))
        during = timed & (op == OP_SECURITY_ATTACK) & (state.attack_stage == STAGE_CHECKS)
        left = jnp.clip(state.checks_left.astype(jnp.int32) + amount, 0, MAX_CHECKS)
        state = state.replace(
            checks_left=jnp.where(during & reaches, left, state.checks_left).astype(jnp.int8)
        )
        return self._add_lasting(
            state,
            timed,
            kind,
            whose,
            jnp.where(target == TARGET_SELF, slot, -1),
            jnp.where(op == OP_GRANT_KEYWORD, col("grant").astype(jnp.int32), amount),
            duration,
            controller,
        )

    def _expire(self, state: DigimonState, ended_turn) -> DigimonState:
        """Timed modifiers whose last turn has ended are removed."""
        gone = (state.lasting_kind != 0) & ~in_force(state.lasting_expires, ended_turn + 1)
        return state.replace(lasting_kind=jnp.where(gone, 0, state.lasting_kind).astype(jnp.int8))

    # -- activated [Main] effects of permanents (1000 + permanent * 10 + effect) -------------------

    def _activate_errors(self, state: DigimonState, main, my_top, slots, my_size) -> jax.Array:
        """Codes ``[n, 10]`` of the activate ids at permanent indices ``slots`` (int ``[n]``,
        0-99: a battle-area slot below 12) and effect index (the row of its top card): a [Main]
        row of the card's own text, in the turn player's Main phase, not yet used this turn
        when [Once Per Turn]."""
        # Worked out for the 12 battle-area slots once (``materialize``), then laid out on the
        # requested indices; indices 12-99 hold no permanent.
        top = my_top[: A.FIELD_SLOTS]  # [12]
        rows = jnp.arange(A.SOURCE_STRIDE)
        definition = state.board.definition[jnp.maximum(top, 0)]
        safe_row = np.minimum(np.arange(A.SOURCE_STRIDE), self.cards["effects.where"].shape[1] - 1)
        # The table's columns laid out on the 10 effect indices first (a constant), then one
        # gather of rows by definition: no per-game gather of columns.
        col = lambda name: take_static(self.cards[f"effects.{name}"], safe_row, 1)[definition]  # noqa: E731
        has_row = rows[None, :] < self.cards["effects.num_rows"][definition][:, None]
        is_main = has_row & (col("trigger") == TRIGGER["main"]) & (col("where") == WHERE_MAIN)
        once = (col("flags").astype(jnp.int32) & FLAG_OPT) != 0
        used = ((state.opt_used[jnp.maximum(top, 0)].astype(jnp.int32)[:, None] >> rows) & 1) == 1
        # <Digi-Burst N>: N digivolution cards to trash (the stack's cards under the top).
        sources = my_size[: A.FIELD_SLOTS] - 1  # [12]
        field = materialize(
            _first_error(
                (~main, "wrong_phase"),
                ((top < 0)[:, None], "no_permanent_there"),
                (~is_main, "no_activated_effect"),
                (once & used, "used_this_turn"),
                (sources[:, None] < col("burst").astype(jnp.int32), "not_enough_sources"),
            )
        )  # [12, 10]
        beyond = _first_error((~main, "wrong_phase"), (True, "no_permanent_there"))
        # Row 12 holds the codes of every index past the battle area; host indices (the whole
        # mask) become slices and one broadcast of it, a traced index one gather.
        table = jnp.concatenate([field, jnp.broadcast_to(beyond, (1, A.SOURCE_STRIDE))])
        xnp = np if isinstance(slots, np.ndarray) else jnp
        return take(table, xnp.minimum(slots, A.FIELD_SLOTS))  # [n, 10]

    def _activate(self, state: DigimonState, action):
        """Activate a permanent's [Main] row: it resolves now (its window, condition and
        [Once Per Turn] use are checked as it resolves, like every row). <Digi-Burst N> (the
        row's ``burst``) is paid first: N digivolution cards go to the trash, those nearest the
        top card first (decision G13: the rules' choice of which cards is not modelled)."""
        me = state.board.active_player.astype(jnp.int32)
        slot, row = jnp.divmod(action - A.LAYOUT.start("activate"), A.SOURCE_STRIDE)
        top, _ = self.stacks(state)
        card = jnp.maximum(jnp.where(me == 0, top[0], top[1])[jnp.minimum(slot, 11)], 0)
        burst = self._card(state, "effects.burst", card)[jnp.clip(row, 0, MAX_EFFECTS - 1)]
        zone = slot_zone(me, jnp.minimum(slot, A.FIELD_SLOTS - 1))

        def trash_one(i, board):
            count = zones.zone_count(board, zone)
            under = jnp.maximum(zones.card_at(board, zone, count - 2), 0)
            moved = zones.move_card(self.layout, board, under, zone_of("trash", me)).board
            return tree_where((i < burst) & (count > 1), moved, board)

        board = jax.lax.fori_loop(0, MAX_BURST, trash_one, state.board)
        fires = jnp.arange(self.cards["effects.where"].shape[1]) == row
        return self._enqueue(
            state.replace(board=board),
            fires[None, :],
            jnp.zeros(1, jnp.int32),
            jnp.reshape(card, 1),
            slot,
        )

    def _apply_to(self, state: DigimonState, op, amount, player, slot) -> DigimonState:
        """The choice primitives on one permanent (selects over the state, no branch per op):
        delete, trash ``amount`` digivolution cards from the bottom, <De-Digivolve amount>,
        return to hand, return to the bottom of the deck, suspend / unsuspend, +DP for a
        duration, a restriction."""
        state = self._delete(state, player, slot, op == OP_DELETE)
        zone = slot_zone(player, slot)

        # Trash ``amount`` digivolution cards from the bottom (the top card stays), or from the
        # top (<De-Digivolve>: never the last card, never below a level 3 top card).
        def trash_one(i, state):
            count = zones.zone_count(state.board, zone)
            top = zones.top_card(state.board, zone)
            from_top = op == OP_DE_DIGIVOLVE
            go = ((op == OP_TRASH_SOURCES) | from_top) & (i < amount) & (count > 1)
            go &= ~from_top | (self._card(state, "level", top) > 3)
            card = jnp.where(from_top, top, zones.card_at(state.board, zone, 0))
            moved = zones.move_card(
                self.layout, state.board, jnp.maximum(card, 0), zone_of("trash", player)
            ).board
            return state.replace(board=tree_where(go, moved, state.board))

        state = jax.lax.fori_loop(0, MAX_TRASHED_SOURCES, trash_one, state)
        # Return to hand: the top card to its owner's hand, the cards under it to the trash.
        bounce = op == OP_BOUNCE
        top = zones.top_card(state.board, zone)
        to_hand = zones.move_card(
            self.layout, state.board, jnp.maximum(top, 0), zone_of("hand", player)
        ).board
        state = state.replace(board=tree_where(bounce & (top >= 0), to_hand, state.board))
        state = self._delete(state, player, slot, bounce, deleted=False)
        # Return to the deck: the whole stack to the bottom of its owner's deck, the top card
        # first (the rules let the owner order them; this order is fixed). Not a deletion.
        back = op == OP_RETURN_TO_DECK

        def to_bottom(board):
            top = jnp.maximum(zones.top_card(board, zone), 0)
            deck = zone_of("deck", player)
            return zones.move_card(self.layout, board, top, deck, zones.BOTTOM).board

        board = jax.lax.while_loop(
            lambda board: back & (zones.zone_count(board, zone) > 0), to_bottom, state.board
        )
        state = self._delete(state.replace(board=board), player, slot, back, deleted=False)
        # Suspend / unsuspend the chosen permanent.
        was = state.suspended[player, slot]
        now = jnp.where(op == OP_SUSPEND, True, jnp.where(op == OP_UNSUSPEND, False, was))
        state = state.replace(suspended=state.suspended.at[player, slot].set(now))
        # Timed: DP on the chosen Digimon, or a restriction (cannot attack / block).
        card = jnp.maximum(state.selection.card.astype(jnp.int32), 0)
        duration = self._sel_col(state, "duration")
        cannot = self._sel_col(state, "cannot").astype(jnp.int32)
        timed = (op == OP_DP) | (op == OP_RESTRICT) | (op == OP_SECURITY_ATTACK)
        timed |= op == OP_GRANT_KEYWORD
        controller = state.board.owner[card].astype(jnp.int32)
        grant = self._sel_col(state, "grant").astype(jnp.int32)
        return self._add_lasting(
            state,
            timed,
            jnp.select(
                [op == OP_DP, op == OP_SECURITY_ATTACK, op == OP_GRANT_KEYWORD],
                [LASTING_DP, LASTING_SA, LASTING_KEYWORD],
                LASTING_RESTRICT,
            ),
            player,
            slot,
            jnp.select([op == OP_RESTRICT, op == OP_GRANT_KEYWORD], [cannot, grant], amount),
            duration,
            controller,
        )

    def _add_lasting(
        self, state: DigimonState, doit, kind, player, slot, amount, duration, controller
    ) -> DigimonState:
        """Put a timed modifier in the first free row of the table (the first row when full)."""
        turn = state.board.turn_number.astype(jnp.int32)
        mine_now = controller == state.board.active_player.astype(jnp.int32)
        expires = last_turn(jnp.asarray(LASTING_DURATION)[duration], turn, mine_now)
        free = state.lasting_kind == 0
        at = jnp.where(jnp.any(free), jnp.argmax(free), 0)
        put = lambda arr, value: arr.at[at].set(jnp.where(doit, value, arr[at]).astype(arr.dtype))  # noqa: E731
        return state.replace(
            lasting_kind=put(state.lasting_kind, kind),
            lasting_player=put(state.lasting_player, player),
            lasting_slot=put(state.lasting_slot, slot),
            lasting_amount=put(state.lasting_amount, amount),
            lasting_expires=put(state.lasting_expires, expires),
        )

    def restricted(self, state: DigimonState, bit: int) -> jax.Array:
        """bool[2, S]: the permanent is under a restriction with ``bit`` (cannot attack / block)."""
        on = (state.lasting_kind == LASTING_RESTRICT) & (
            (state.lasting_amount.astype(jnp.int32) & bit) != 0
        )
        player = state.lasting_player.astype(jnp.int32)
        slot = state.lasting_slot.astype(jnp.int32)
        return jnp.any(
            on
            & (player == jnp.arange(2)[:, None, None])
            & (slot == jnp.arange(NUM_SLOTS)[None, :, None]),
            axis=-1,
        )

    def security_dp_bonus(self, state: DigimonState, perm: Permanents | None = None) -> jax.Array:
        """int32[2]: the DP each player's Security Digimon get from timed modifiers and from
        continuous rows in play (``perm``: :meth:`permanents` of ``state``, computed if None)."""
        perm = self.permanents(state) if perm is None else perm
        on = state.lasting_kind == LASTING_SECURITY_DP
        player = state.lasting_player.astype(jnp.int32)
        amount = state.lasting_amount.astype(jnp.int32)
        timed = jnp.sum(jnp.where(on & (player == jnp.arange(2)[:, None]), amount, 0), axis=-1)
        return timed + perm.security_dp
