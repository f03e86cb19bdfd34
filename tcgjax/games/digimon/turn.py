"""The turn: the automatic play after each action (one loop of micro-steps: resolve a queued
row, trash a used Option, advance the attack, end the turn, start the next; the 0 DP rules
check, G11) and the player's own moves (play, digivolve, DNA digivolve, hatch, move, pass).

A room of :class:`~tcgjax.games.digimon.rules.DigimonRules` (a mixin: its methods read the
rules object's tables, set up in ``rules.py``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from tcgjax.core import zones
from tcgjax.core.effects import Selection
from tcgjax.core.tree import tree_where, when_some
from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon.cards import (
    DIGI_EGG,
    DIGIMON,
    OPTION,
)
from tcgjax.games.digimon.state import (
    BREEDING_SLOT,
    CHOICE_ORDER,
    END_DECK_OUT,
    GROUP_CONFIRMED,
    IN_BATTLE_AREA,
    KW,
    LASTING_DP,
    MAX_MICRO_STEPS,
    MEMORY_LIMIT,
    NUM_SLOTS,
    PASS_MEMORY,
    PHASE,
    QUEUE_SIZE,
    TRIGGER,
    WHERE_MAIN,
    WORK_ATTACK,
    WORK_END_TURN,
    WORK_RESOLVE,
    WORK_TRASH_OPTION,
    WORK_TURN_START,
    DigimonState,
    _first_error,
    slot_zone,
    zone_of,
)


class TurnLoop:
    """The turn: the automatic play after each action, and the player's own moves."""

    # -- the automatic part of the game: one loop of micro-steps ------------------------------------

    @property
    def _reach(self) -> int:
        """How far past the gauge's 0 a cost may go (G1): to 10 on the opponent's side
        (official), or not at all (the spec's rule)."""
        return MEMORY_LIMIT if self.memory_rule == "official" else 0

    def _turn_over(self, state: DigimonState) -> jax.Array:
        """G1: the turn ends once the gauge is 1 or more on the opponent's side (official), or
        at 0 or below (the spec's "0 ends the turn")."""
        return state.memory < 0 if self.memory_rule == "official" else state.memory <= 0

    def _work_kind(self, state: DigimonState) -> jax.Array:
        """The micro-step due now, by priority: 0 resolve a queued row, 1 trash a used Option,
        2 advance the attack, 3 end the turn, 4 run the new turn's Unsuspend and Draw phases;
        -1 when a player must decide (a timing or a selection) or the game is over."""
        phase = state.board.phase
        deciding = (
            (phase == PHASE["block_timing"])
            | (phase == PHASE["counter_timing"])
            | (state.selection.card >= 0)
            | (state.winner >= 0)
        )
        processing = zones.zone_count(state.board, self.layout.zone_index("processing")) > 0
        kind = jnp.select(
            [
                state.queue.card[0] >= 0,
                processing,
                state.attacker >= 0,
                (phase == PHASE["main"]) & self._turn_over(state),
                phase == PHASE["start"],
            ],
            [WORK_RESOLVE, WORK_TRASH_OPTION, WORK_ATTACK, WORK_END_TURN, WORK_TURN_START],
            -1,
        )
        return jnp.where(deciding, -1, kind)

    def _has_work(self, state: DigimonState) -> jax.Array:
        """bool[]: something happens before the next decision (see :meth:`_micro_step`)."""
        return self._work_kind(state) >= 0

    def _run(self, state: DigimonState) -> DigimonState:
        """Passes of micro-steps until a player must decide or the game is over (at most
        ``MAX_MICRO_STEPS`` passes: each makes progress, the bound only guards the loop). The
        first pass opens with the rules check due after the action (:meth:`_micro_step`)."""

        def cond(carry):
            i, state, check = carry
            return (i < MAX_MICRO_STEPS) & (self._has_work(state) | check)

        def body(carry):
            i, state, check = carry
            return i + 1, *self._micro_step(state, check)

        check = self._zero_dp_possible(state)
        return jax.lax.while_loop(cond, body, (jnp.int32(0), state, check))[1]

    def _micro_step(self, state: DigimonState, check: jax.Array) -> tuple[DigimonState, jax.Array]:
        """One pass of automatic play: the rules check where ``check`` (bool[]) says one is due
        (:meth:`_zero_dp_check`), then each kind of micro-step in priority order (a queued effect
        row resolves, first in first out; an Option whose rows have resolved goes to the trash;
        the attack in progress moves on; the turn ends, its [End of Your Turn] rows first; the
        new turn's Unsuspend and Draw phases run once its [Start of Your Turn] rows have
        resolved), each when it is the one due (:meth:`_work_kind`) after the previous ones.
        Returns the state and whether the next pass opens with a rules check.

        The same order as one micro-step at a time, in fewer loop iterations: the loop runs as
        often as the busiest game of the batch needs, and a pass lets a plain turn end, or an
        attack without effects, finish in one or two. Under ``vmap`` a kind runs only when some
        game of the batch has it due (``when_any``): a ``lax.cond`` on a per-game predicate would
        run every kind for every game.

        Rules processing (G11): a Digimon at 0 DP is deleted before anything else happens, so
        it runs after the action, once an effect row has resolved, after the attack's step (a
        battle can delete the source of an aura) and after the turn's end (a [Your Turn] bonus
        ends, a timed one expires); trashing a used Option, Unsuspend and Draw change no DP.
        A game that needs it ends its pass there and the next pass opens with the check: one
        copy of the check in the step's program instead of one after each of those kinds."""
        state = when_some(check, self._zero_dp_check, state)
        check = jnp.zeros_like(check)
        steps = (
            self._resolve_one,
            self._trash_processed,
            self._attack_step,
            self._end_turn_step,
            self._turn_start_step,
        )
        for kind, step in enumerate(steps):
            due = (self._work_kind(state) == kind) & ~check
            state = when_some(due, step, state)
            if kind in (WORK_RESOLVE, WORK_ATTACK, WORK_END_TURN):
                check |= due & self._zero_dp_possible(state, kind == WORK_RESOLVE)
        return state, check

    def _zero_dp_possible(self, state: DigimonState, stacks_changed: bool = True) -> jax.Array:
        """bool[]: a Digimon may be at 0 DP: a timed -DP modifier is live, a Digi-Egg is on top of
        a battle-area stack, or the card file has cards that make it possible anywhere. Without
        any of them every Digimon's DP is at least its printed DP, above 0: the full check
        (:meth:`permanents`) is skipped (``when_some``).

        ``stacks_changed=False`` (host-known) after a micro-step that cannot leave a Digi-Egg on
        top of a stack: only an effect (<De-Digivolve>) can, never a battle, a security check's
        own step or a turn's end, which only delete whole stacks or expire modifiers."""
        negative = jnp.any((state.lasting_kind == LASTING_DP) & (state.lasting_amount < 0))
        if not stacks_changed:
            return negative | self._zero_dp_always
        board = state.board
        zone = board.zone.astype(jnp.int32)
        on_top = board.position.astype(jnp.int32) == zones.zone_counts(self.layout, board)[zone] - 1
        egg = self.cards["kind"][board.definition] == DIGI_EGG
        egg_on_top = jnp.any(egg & on_top & jnp.asarray(self._battle_zones)[zone])
        return negative | egg_on_top | self._zero_dp_always

    def _zero_dp_check(self, state: DigimonState) -> DigimonState:
        """Rules processing (official rule: a Digimon whose DP is 0 is deleted): every Digimon
        in a battle area at 0 DP (printed DP with every modifier, floored at 0; a stack whose top
        card is a Digi-Egg has none) is deleted, all at once; their [On Deletion] rows and the
        ``opponent_deleted_at_zero_dp`` rows of each deleted Digimon's opponent fire together
        (one queue group, the turn player's first; the latter once per rules check, however
        many of that player's opponent's Digimon went). Not while a selection is pending (an
        effect still resolving) or once the game is over. Decision G11 (game README)."""
        perm = self.permanents(state)
        # A Digi-Egg left on top of a battle-area stack (<De-Digivolve> under a Digimon that had
        # lost the cards between) has no DP: deleted the same way.
        digimon = (perm.kind == DIGIMON) | (perm.kind == DIGI_EGG)
        zero = digimon & (perm.dp <= 0) & jnp.asarray(IN_BATTLE_AREA)
        zero &= (state.selection.card < 0) & (state.winner < 0)

        def delete(state, zero):  # ``zero`` as an argument: ``when_some`` gathers it per game
            lost = jnp.any(zero, axis=1)  # [2]: the player lost a Digimon to the rule
            rivals = jnp.broadcast_to(lost[::-1, None], (2, NUM_SLOTS))
            state = self._push(
                state,
                TRIGGER["on_deletion"],
                zero,
                TRIGGER["opponent_deleted_at_zero_dp"],
                rivals,
                *self._deletion_pair(zero),
            )

            def one(i, state):
                player, slot = i // A.FIELD_SLOTS, i % A.FIELD_SLOTS
                return self._delete(state, player, slot, zero[player, slot], deleted=False)

            return jax.lax.fori_loop(0, 2 * A.FIELD_SLOTS, one, state)

        return when_some(jnp.any(zero), delete, state, zero)

    def _resolve_one(self, state: DigimonState) -> DigimonState:
        """Pop the first queued effect row and execute it; or, when its controller has two or
        more effects that triggered with it and their order can matter (G10, official rule:
        the player orders their own simultaneous triggers, the turn player's first), ask them
        which resolves next (SelectEffectChoice, :meth:`trigger_order_choices`)."""
        card = jnp.maximum(state.queue.card[0].astype(jnp.int32), 0)
        row, slot = state.queue.row[0], state.queue.slot[0]
        popped = state.replace(queue=state.queue.pop())
        # An optional row its controller has just taken (``_select``) resolves without asking.
        confirmed = state.queue.group[0] == GROUP_CONFIRMED
        resolved = self._execute(popped, card, row, slot, confirmed)
        if self.trigger_order == "fixed":
            return resolved
        first, _ = self._order_candidates(state)
        definition = state.board.definition[jnp.maximum(state.queue.card, 0)]  # [Q]
        # Order can matter when the candidates are not all copies of one card (same rows).
        differ = jnp.any(first & (definition != definition[0]))
        ask = state.replace(
            selection=Selection.open(
                card, row, slot, left=1, resume=state.board.phase, stage=CHOICE_ORDER
            ),
            board=state.board.replace(phase=jnp.int8(PHASE["select_effect_choice"])),
        )
        return tree_where((jnp.sum(first) >= 2) & differ, ask, resolved)

    def _order_candidates(self, state: DigimonState) -> tuple[jax.Array, jax.Array]:
        """The simultaneous triggers that the first queued entry's controller may order:
        ``first`` bool[Q], the first entry of each distinct card among the waiting entries of the
        first entry's group and controller (choice ``i`` = the ``i``-th of them, in queue order);
        ``of_card`` bool[Q, Q], entry ``j`` belongs to the card of candidate entry ``k``
        (``[k, j]``). Nothing when the first entry's order is settled (group -1)."""
        queue = state.queue
        card = queue.card.astype(jnp.int32)
        owner = state.board.owner[jnp.maximum(card, 0)]
        group = queue.group
        mine = (card >= 0) & (group == group[0]) & (group[0] >= 0) & (owner == owner[0])
        same = (card[:, None] == card[None, :]) & mine[:, None] & mine[None, :]  # [Q, Q]
        earlier = jnp.tril(jnp.ones((QUEUE_SIZE, QUEUE_SIZE), jnp.bool_), -1)  # [j, k]: k < j
        first = mine & ~jnp.any(same & earlier, axis=1)
        return first, same

    def trigger_order_choices(self, state: DigimonState) -> jax.Array:
        """int32[]: how many effects the pending trigger-order choice offers (ids 1000 + i)."""
        first, _ = self._order_candidates(state)
        return jnp.sum(first, dtype=jnp.int32)

    def trigger_order_cards(self, state: DigimonState) -> jax.Array:
        """int32[Q]: the card instance whose effects choice ``1000 + i`` of a trigger-order
        choice resolves next, for each ``i`` (-1 past the candidates)."""
        first, _ = self._order_candidates(state)
        rank = jnp.where(first, jnp.cumsum(first) - 1, QUEUE_SIZE)
        cards = state.queue.card.astype(jnp.int32)
        return jnp.full(QUEUE_SIZE + 1, -1, jnp.int32).at[rank].set(cards)[:QUEUE_SIZE]

    def _order(self, state: DigimonState, action):
        """The controller picks which of their simultaneous triggered effects resolves next (id
        1000 + i: the ``i``-th candidate card, :meth:`_order_candidates`): all of that card's
        waiting rows move to the front, settled, and resolve next; the choice closes. When the
        next of the others comes up, the player is asked again while two or more remain."""
        first, same = self._order_candidates(state)
        rank = jnp.cumsum(first) - 1
        pick = first & (rank == action - 1000)  # [Q]: the chosen candidate's entry
        chosen = jnp.any(same & pick[None, :], axis=1)  # every entry of that card
        return state.replace(
            queue=state.queue.to_front(chosen),
            selection=Selection.none(),
            board=state.board.replace(phase=state.selection.resume),
        )

    def _trash_processed(self, state: DigimonState) -> DigimonState:
        """An Option that has resolved goes from ``processing`` to its owner's trash."""
        processing = self.layout.zone_index("processing")
        card = jnp.maximum(zones.top_card(state.board, processing), 0)
        owner = state.board.owner[card].astype(jnp.int32)
        moved = zones.move_card(self.layout, state.board, card, zone_of("trash", owner))
        return state.replace(board=moved.board)

    def _end_turn_step(self, state: DigimonState) -> DigimonState:
        """The gauge is on the opponent's side with nothing left to resolve: the turn player's
        [End of Your Turn] rows fire (once a turn); if the gauge is still on the opponent's side
        once they have resolved, the next turn begins."""
        me = state.board.active_player.astype(jnp.int32)
        # The opponent's "at the end of the opponent's turn" rows trigger with these.
        fire = self._push(
            state,
            TRIGGER["end_of_your_turn"],
            self._all_slots(me),
            TRIGGER["end_of_opponents_turn"],
            self._all_slots(1 - me),
        )
        fire = fire.replace(end_fired=jnp.bool_(True))
        # No row fired: the gauge is unchanged and the next turn begins in the same micro-step.
        nothing = fire.queue.card[0] < 0
        return tree_where(state.end_fired | nothing, self._next_turn(state), fire)

    def _next_turn(self, state: DigimonState) -> DigimonState:
        """Timed modifiers of the ended turn expire; the other player's turn begins with the
        gauge on their side and their [Start of Your Turn] rows queued (phase ``start``: the
        Unsuspend and Draw phases follow once those rows have resolved)."""
        state = self._expire(state, state.board.turn_number.astype(jnp.int32))
        board = state.board
        nxt = 1 - board.active_player.astype(jnp.int32)
        board = board.replace(
            active_player=nxt.astype(jnp.int8),
            turn_number=board.turn_number + 1,
            phase=jnp.int8(PHASE["start"]),
        )
        state = state.replace(
            board=board,
            memory=(-state.memory).astype(jnp.int8),
            opt_used=jnp.zeros_like(state.opt_used),
            end_fired=jnp.bool_(False),
            attacked=jnp.bool_(False),
        )
        return self._push(state, TRIGGER["start_of_your_turn"], self._all_slots(nxt))

    def _turn_start_step(self, state: DigimonState) -> DigimonState:
        """Unsuspend phase (the turn player's permanents, and the opponent's <Reboot> Digimon),
        then the Draw phase (unable to draw = loss), then the Breeding phase (a decision)."""
        me = state.board.active_player.astype(jnp.int32)
        perm = self.permanents(state)
        reboot = perm.keywords[:, :, KW["reboot"]] & (perm.kind == DIGIMON)
        wake = (jnp.arange(2)[:, None] == me) | reboot
        drawn = zones.draw(self.layout, state.board, zone_of("deck", me), zone_of("hand", me))
        decked = drawn.error != 0
        # A player who cannot draw loses in the Draw phase: the finished game keeps that phase
        # (no Breeding phase of a turn that never goes on).
        phase = jnp.where(decked, PHASE["draw"], PHASE["breeding"]).astype(jnp.int8)
        return state.replace(
            board=drawn.board.replace(phase=phase),
            suspended=state.suspended & ~wake,
            winner=jnp.where(decked, 1 - me, state.winner).astype(jnp.int8),
            end_reason=jnp.where(decked, END_DECK_OUT, state.end_reason).astype(jnp.int8),
        )

    # -- actions -----------------------------------------------------------------------------------

    def _noop(self, state, action):
        del action
        return state

    def _lowest_free_slot(self, state: DigimonState, player) -> jax.Array:
        """The lowest empty battle slot of ``player`` (0 when none is free: check ``_has_room``)."""
        _, size = self.stacks(state)
        mine = jnp.where(player == 0, size[0], size[1])[: A.FIELD_SLOTS]
        return jnp.argmax(mine == 0).astype(jnp.int32)

    def _has_room(self, state: DigimonState, player) -> jax.Array:
        _, size = self.stacks(state)
        return jnp.any(jnp.where(player == 0, size[0], size[1])[: A.FIELD_SLOTS] == 0)

    def _enter(self, state: DigimonState, player, slot) -> DigimonState:
        """A new permanent in ``slot``: unsuspended, entered this turn."""
        return state.replace(
            suspended=state.suspended.at[player, slot].set(False),
            entered_turn=state.entered_turn.at[player, slot].set(
                state.board.turn_number.astype(jnp.int16)
            ),
        )

    def _put_into_play(self, state: DigimonState, card, player, quiet=False) -> DigimonState:
        """``card`` becomes a new permanent of ``player`` in the lowest free battle slot, and its
        [On Play] rows queue (playing, from hand or by an effect, without the cost here), unless
        ``quiet`` (bool[]: an effect that plays it "without activating [On Play]")."""
        slot = self._lowest_free_slot(state, player)
        board = zones.move_card(self.layout, state.board, card, slot_zone(player, slot)).board
        state = self._enter(state.replace(board=board), player, slot)
        return self._push(state, TRIGGER["on_play"], self._one_slot(player, slot) & ~quiet)

    def _pay(self, state: DigimonState, cost) -> DigimonState:
        memory = state.memory.astype(jnp.int32) - cost
        return state.replace(memory=jnp.clip(memory, -MEMORY_LIMIT, MEMORY_LIMIT).astype(jnp.int8))

    def _play(self, state: DigimonState, action):
        """A Digimon or Tamer enters the lowest free battle slot ([On Play] rows queue); an
        Option goes to ``processing`` and its [Main] rows queue (it is trashed once resolved)."""
        me = state.board.active_player.astype(jnp.int32)
        card = jnp.maximum(self.hand(state, me)[action], 0)
        is_option = self._card(state, "kind", card) == OPTION
        state = self._pay(state, self._card(state, "play_cost", card))
        entered = self._put_into_play(state, card, me)
        processing = self.layout.zone_index("processing")
        used = state.replace(
            board=zones.move_card(self.layout, state.board, card, processing).board
        )
        used = self._push_card(used, card, WHERE_MAIN, TRIGGER["main"])
        return tree_where(is_option, used, entered)

    def _digivolve(self, state: DigimonState, action):
        """Digivolve a hand card onto a permanent, paying the cost, then draw 1 and queue the
        [When Digivolving] rows. In the counter timing this is the defender's <Blast
        Digivolve>: their card, no cost, and the attack goes on to the block timing."""
        counter = state.board.phase == PHASE["counter_timing"]
        active = state.board.active_player.astype(jnp.int32)
        me = jnp.where(counter, 1 - active, active)
        h, slot = jnp.divmod(action - A.LAYOUT.start("digivolve"), A.FIELD_STRIDE)
        hand = self.hand(state, me)
        top, _ = self.stacks(state)
        my_top = jnp.where(me == 0, top[0], top[1])
        # The counter timing's <Blast Digivolve> is free; a special digivolution (a
        # digivolve_into row in force) costs what its row says.
        special = None
        if self._has_special:
            live = self.permanents(state).digivolve_into
            special = jnp.where(me == 0, live[0], live[1])
        cost = self.digivolve_costs(state, hand, my_top, special)
        cost = cost[h, jnp.minimum(slot, NUM_SLOTS - 1)]
        card = jnp.maximum(hand[h], 0)
        board = zones.move_card(self.layout, state.board, card, slot_zone(me, slot)).board
        state = self._pay(state.replace(board=board), jnp.where(counter, 0, cost))
        # The digivolution bonus: draw 1 (nothing happens on an empty deck outside the Draw phase).
        drawn = zones.draw(self.layout, state.board, zone_of("deck", me), zone_of("hand", me))
        state = state.replace(
            board=drawn.board.replace(
                phase=jnp.where(counter, jnp.int8(PHASE["main"]), drawn.board.phase)
            ),
            attack_stage=jnp.where(counter, state.attack_stage + 1, state.attack_stage).astype(
                jnp.int8
            ),
        )
        return self._push(state, TRIGGER["when_digivolving"], self._one_slot(me, slot))

    def _hatch(self, state: DigimonState, action):
        del action
        me = state.board.active_player.astype(jnp.int32)
        board = zones.draw(
            self.layout, state.board, zone_of("eggs", me), slot_zone(me, BREEDING_SLOT)
        ).board
        state = self._enter(state.replace(board=board), me, BREEDING_SLOT)
        return state.replace(board=state.board.replace(phase=jnp.int8(PHASE["main"])))

    def _move(self, state: DigimonState, action):
        """Breeding → battle area: the whole stack, keeping its state (not "played")."""
        del action
        me = state.board.active_player.astype(jnp.int32)
        slot = self._lowest_free_slot(state, me)
        moved = zones.move_all(
            self.layout, state.board, slot_zone(me, BREEDING_SLOT), slot_zone(me, slot)
        ).board
        return state.replace(
            board=moved.replace(phase=jnp.int8(PHASE["main"])),
            suspended=state.suspended.at[me, slot]
            .set(state.suspended[me, BREEDING_SLOT])
            .at[me, BREEDING_SLOT]
            .set(False),
            entered_turn=state.entered_turn.at[me, slot]
            .set(state.entered_turn[me, BREEDING_SLOT])
            .at[me, BREEDING_SLOT]
            .set(-1),
        )

    def _pass(self, state: DigimonState, action):
        del action
        in_main = state.board.phase == PHASE["main"]
        to_main = state.replace(board=state.board.replace(phase=jnp.int8(PHASE["main"])))
        end = state.replace(memory=jnp.int8(-PASS_MEMORY))
        return tree_where(in_main, end, to_main)

    # -- DNA digivolution (63-92, then SelectMaterial) ---------------------------------------------

    def _dna_matches(self, state: DigimonState, card, tops) -> jax.Array:
        """bool[2, 12]: which of the permanents ``tops`` ([12] top cards) meet each of the 2 DNA
        requirements of ``card`` (a Digimon top card of that level and color)."""
        level = self._card(state, "dna.level", card)  # [2]
        color = self._card(state, "dna.color", card).astype(jnp.int32)
        has = jnp.arange(2) < self._card(state, "dna.num_rows", card)
        top_level = self._card(state, "level", tops)
        top_colors = self._card(state, "colors", tops).astype(jnp.int32)
        digimon = (tops >= 0) & (self._card(state, "kind", tops) == DIGIMON)
        return (
            has[:, None]
            & digimon[None, :]
            & (top_level[None, :] == level[:, None])
            & (((top_colors[None, :] >> color[:, None]) & 1) == 1)
        )

    @staticmethod
    def _dna_pairs(match) -> jax.Array:
        """bool[12, 12]: ordered pairs (x, y), x != y, that meet the 2 requirements in some order."""
        pairs = (match[0][:, None] & match[1][None, :]) | (match[1][:, None] & match[0][None, :])
        return pairs & ~jnp.eye(A.FIELD_SLOTS, dtype=jnp.bool_)

    def _dna_errors(self, state: DigimonState, hand, main, afford, my_top) -> jax.Array:
        """Codes of the DNA ids 63-92 (hand index) in the Main phase."""
        tops = my_top[: A.FIELD_SLOTS]
        match = jax.vmap(lambda card: self._dna_matches(state, card, tops))(hand)  # [H, 2, 12]
        pairs = jax.vmap(self._dna_pairs)(match)  # [H, 12, 12]
        is_dna = (self._card(state, "kind", hand) == DIGIMON) & (
            self._card(state, "dna.num_rows", hand) == 2
        )
        return _first_error(
            (~main, "wrong_phase"),
            (hand < 0, "no_card_in_hand_slot"),
            (~is_dna, "no_dna_requirement"),
            (~afford(self._card(state, "dna_cost", hand).astype(jnp.int32)), "not_enough_memory"),
            (~jnp.any(pairs, axis=(1, 2)), "no_dna_materials"),
        )

    def _dna(self, state: DigimonState, action):
        """Declare a DNA digivolution: the hand card waits in SelectMaterial for 2 materials."""
        me = state.board.active_player.astype(jnp.int32)
        card = self.hand(state, me)[action - A.LAYOUT.start("dna")]
        return state.replace(
            selection=Selection.open(card, -1, -1, left=2, resume=state.board.phase),
            board=state.board.replace(phase=jnp.int8(PHASE["select_material"])),
        )

    def material_choices(self, state: DigimonState) -> jax.Array:
        """bool[12] in SelectMaterial: the controller's battle-area Digimon that can be the next
        material (the first pick: part of a valid pair; the second: completes the first's)."""
        card = jnp.maximum(state.selection.card.astype(jnp.int32), 0)
        controller = state.board.owner[card].astype(jnp.int32)
        top, _ = self.stacks(state)
        tops = jnp.where(controller == 0, top[0], top[1])[: A.FIELD_SLOTS]
        pairs = self._dna_pairs(self._dna_matches(state, card, tops))
        first = state.selection.slot.astype(jnp.int32)
        which = jnp.where(first < 0, jnp.any(pairs, axis=1), pairs[jnp.maximum(first, 0)])
        return which & (state.board.phase == PHASE["select_material"]) & (state.selection.card >= 0)

    def _dna_merge(self, state: DigimonState, player, first, second) -> DigimonState:
        """The DNA digivolution: the second material's stack goes onto the first's, the DNA card
        on top, in the first's slot; pay the DNA cost, unsuspend, draw 1, [When Digivolving].
        The result may attack this turn (unverified; the DCGO simulator's reading)."""
        card = jnp.maximum(state.selection.card.astype(jnp.int32), 0)
        board = zones.move_all(
            self.layout, state.board, slot_zone(player, second), slot_zone(player, first)
        ).board
        board = zones.move_card(self.layout, board, card, slot_zone(player, first)).board
        drawn = zones.draw(self.layout, board, zone_of("deck", player), zone_of("hand", player))
        gone = (state.lasting_player == player) & (state.lasting_slot == second)
        state = state.replace(
            board=drawn.board,
            suspended=state.suspended.at[player, first].set(False).at[player, second].set(False),
            entered_turn=state.entered_turn.at[player, first].set(0).at[player, second].set(-1),
            lasting_kind=jnp.where(gone, 0, state.lasting_kind).astype(jnp.int8),
        )
        state = self._pay(state, self._card(state, "dna_cost", card).astype(jnp.int32))
        return self._push(state, TRIGGER["when_digivolving"], self._one_slot(player, first))
