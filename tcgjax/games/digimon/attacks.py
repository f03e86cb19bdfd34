"""Attacks (official General Rules 11-1-3, G7): declaration, counter and block timings,
battles, security checks one card at a time, deletion.

A room of :class:`~tcgjax.games.digimon.rules.DigimonRules` (a mixin: its methods read the
rules object's tables, set up in ``rules.py``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from tcgjax.core import zones
from tcgjax.core.tree import tree_where, when_any
from tcgjax.games.digimon import actions as A
from tcgjax.games.digimon.cards import (
    DIGIMON,
)
from tcgjax.games.digimon.state import (
    END_ILLEGAL,
    END_SECURITY,
    KW,
    MAX_CHECKS,
    NUM_SLOTS,
    PHASE,
    STAGE_CHECKS,
    STAGE_DECLARED,
    STAGE_FIRST_TIMING_OVER,
    STAGE_NONE,
    STAGE_TIMINGS_OVER,
    TRIGGER,
    WHERE_SECURITY,
    WORK_ATTACK,
    DigimonState,
    slot_zone,
    zone_of,
)


class Attacks:
    """Attacks: declaration, counter and block timings, battles, security checks, deletion."""

    # -- attacks (official order, G7: counter timing, then block timing) ---------------------------

    def _suspension_pair(self, player) -> tuple:
        """The ``(trigger, slots)`` pair of "an opposing Digimon becomes suspended" when one of
        ``player``'s Digimon is suspended by attacking or blocking: the rows of ``player``'s
        opponent fire, with the attack's own triggers (one group). Empty when no card has it."""
        if not self._fires_on("opponent_digimon_suspended"):
            return ()
        return (TRIGGER["opponent_digimon_suspended"], self._all_slots(1 - player))

    def _attack(self, state: DigimonState, action):
        """Declaration: suspend the attacker and queue its [When Attacking] rows (and the
        opponent's "when an opposing Digimon becomes suspended" rows); the attack goes on in the
        micro-steps (:meth:`_attack_step`) once they have resolved."""
        me = state.board.active_player.astype(jnp.int32)
        a, t = jnp.divmod(action - A.LAYOUT.start("attack"), A.FIELD_STRIDE)
        state = state.replace(
            suspended=state.suspended.at[me, a].set(True),
            attacker=a.astype(jnp.int8),
            attack_target=t.astype(jnp.int8),
            attack_stage=jnp.int8(STAGE_DECLARED),
            attacked=jnp.bool_(True),
        )
        return self._push(
            state, TRIGGER["when_attacking"], self._one_slot(me, a), *self._suspension_pair(me)
        )

    def _block(self, state: DigimonState, action):
        """The defender blocks: the blocker is suspended and becomes the attack's target; the
        attacker's [When Blocked] rows fire; the battle follows."""
        me = state.board.active_player.astype(jnp.int32)
        blocker = action - A.LAYOUT.start("attack")
        state = state.replace(
            suspended=state.suspended.at[1 - me, blocker].set(True),
            attack_target=blocker.astype(jnp.int8),
            attack_stage=(state.attack_stage + 1).astype(jnp.int8),
            board=state.board.replace(phase=jnp.int8(PHASE["main"])),
        )
        attacker = state.attacker.astype(jnp.int32)
        # The attacker's [When Blocked] and the blocker's player's "when one of your Digimon
        # blocks" rows trigger together (one group, the turn player's first), and the turn
        # player's "when an opposing Digimon becomes suspended" (official Q&A on ST4-14).
        return self._push(
            state,
            TRIGGER["when_blocked"],
            self._one_slot(me, attacker),
            TRIGGER["own_digimon_blocks"],
            self._all_slots(1 - me),
            *self._suspension_pair(1 - me),
        )

    def _decline(self, state: DigimonState, action):
        """The defender declines the counter timing or the block timing (62)."""
        del action
        return state.replace(
            attack_stage=(state.attack_stage + 1).astype(jnp.int8),
            board=state.board.replace(phase=jnp.int8(PHASE["main"])),
        )

    def _attack_step(self, state: DigimonState) -> DigimonState:
        """Move the attack on: after [When Attacking], the defender's counter timing (<Blast
        Digivolve>) and block timing (decisions, each skipped when the defender has no move in
        it); then the battle with a Digimon, or the security checks one card at a time; then the
        end of the attack. Skipped timings and the battle's start take one micro-step together,
        and up to two security-check micro-steps follow in the same pass while nothing else is
        due (a [Security] row to resolve, a selection, the end of the game)."""
        stage = state.attack_stage.astype(jnp.int32)

        def timings(state):
            # The defender's timings (G7): counter timing, then block timing (official order;
            # the spec's order, block first, is the ``timing_order="spec"`` option); each is a
            # decision only when the defender has a move in it (what they can do does not change
            # while timings are skipped: nothing else happens between them).
            counter_move = jnp.any(self.blast_errors(state, jnp.arange(A.HAND_SLOTS)) == 0)
            block_move = jnp.any(self.blockers(state))
            counter_phase, block_phase = PHASE["counter_timing"], PHASE["block_timing"]
            if self.timing_order == "official":
                first_move, second_move, first_phase, second_phase = (
                    counter_move, block_move, counter_phase, block_phase
                )  # fmt: skip
            else:
                first_move, second_move, first_phase, second_phase = (
                    block_move, counter_move, block_phase, counter_phase
                )  # fmt: skip
            open_first = (stage == STAGE_DECLARED) & first_move
            open_second = ~open_first & (stage <= STAGE_FIRST_TIMING_OVER) & second_move
            opened = state.replace(
                attack_stage=jnp.where(open_first, STAGE_DECLARED, STAGE_FIRST_TIMING_OVER).astype(
                    jnp.int8
                ),
                board=state.board.replace(
                    phase=jnp.where(open_first, first_phase, second_phase).astype(jnp.int8)
                ),
            )
            over = state.replace(attack_stage=jnp.int8(STAGE_TIMINGS_OVER))
            return when_any(~(open_first | open_second), lambda _: self._begin_battle(over), opened)

        step = when_any(stage <= STAGE_TIMINGS_OVER, timings, state)
        # An attacker that has left the battle area ends the attack (no battle, no further check;
        # a card being checked still finishes: it goes to the trash).
        step = tree_where(self._attacker_present(state), step, self._end_attack(state))

        def check(_, step):  # flip, then finish a check (or end the attack) if nothing intervenes
            due = (self._work_kind(step) == WORK_ATTACK) & (step.attack_stage == STAGE_CHECKS)
            return when_any(due, self._check_or_end, step)

        # A loop, not two inlined copies: the check step is a quarter of the attack's program.
        return jax.lax.fori_loop(0, 2, check, step)

    def _attacker_present(self, state: DigimonState) -> jax.Array:
        """The attacker is still in the battle area, or a checked card is still to finish."""
        me = state.board.active_player.astype(jnp.int32)
        attacker = jnp.maximum(state.attacker.astype(jnp.int32), 0)
        present = zones.zone_count(state.board, slot_zone(me, attacker)) > 0
        return present | (state.checking >= 0)

    def _check_or_end(self, state: DigimonState) -> DigimonState:
        """One security-check micro-step, or the end of the attack once the attacker has left."""
        return tree_where(
            self._attacker_present(state), self._check_step(state), self._end_attack(state)
        )

    def _end_attack(self, state: DigimonState) -> DigimonState:
        return state.replace(
            attacker=jnp.int8(-1),
            attack_target=jnp.int8(-1),
            attack_stage=jnp.int8(STAGE_NONE),
            checks_left=jnp.int8(0),
            checking=jnp.int16(-1),
        )

    def _checks(self, state: DigimonState) -> jax.Array:
        """1 + <Security A. +N> of the attacker, where <Security A. -N> counts as -N: never fewer
        than 0 (official Q&A on ST3-15: the checks cannot go below 0; an attack that checks 0
        cards flips nothing). Decision G12 (game README): a player with no security card still
        loses to an attack on them, whatever the attacker's count (:meth:`_begin_battle`)."""
        me = state.board.active_player.astype(jnp.int32)
        perm = self.permanents(state)
        sa = jnp.where(me == 0, perm.security_attack[0], perm.security_attack[1])
        count = 1 + sa[jnp.maximum(state.attacker.astype(jnp.int32), 0)]
        return jnp.clip(count, 0, MAX_CHECKS).astype(jnp.int8)

    def _begin_battle(self, state: DigimonState) -> DigimonState:
        """The attack's target is fixed: battle the target Digimon (<Piercing>: then check
        security if it was deleted and the attacker survived), or attack the player: with no
        security card left the attacker's player wins, otherwise the checks begin."""
        me = state.board.active_player.astype(jnp.int32)
        target = state.attack_target.astype(jnp.int32)
        checks = state.replace(attack_stage=jnp.int8(STAGE_CHECKS), checks_left=self._checks(state))
        empty = zones.zone_count(state.board, zone_of("security", 1 - me)) == 0
        won = self._end_attack(state).replace(
            winner=me.astype(jnp.int8), end_reason=jnp.int8(END_SECURITY)
        )
        direct = tree_where(empty, won, checks)
        return when_any(target < A.FIELD_SLOTS, lambda _: self._battle(state, checks), direct)

    def _battle(self, state: DigimonState, checks: DigimonState) -> DigimonState:
        """The attacker battles the target Digimon: the lower DP is deleted, equal DP both
        (<Retaliation>: a Digimon deleted in battle deletes the one it battled)."""
        me = state.board.active_player.astype(jnp.int32)
        a = jnp.maximum(state.attacker.astype(jnp.int32), 0)
        t = jnp.clip(state.attack_target.astype(jnp.int32), 0, A.FIELD_SLOTS - 1)
        _, size = self.stacks(state)
        present = size[1 - me, t] > 0  # the target may have left (bounced, deleted) meanwhile
        perm = self.permanents(state, self._battling(state))
        dp_a, dp_t = perm.dp[me, a], perm.dp[1 - me, t]
        kw_a, kw_t = perm.keywords[me, a], perm.keywords[1 - me, t]
        a_lost, t_lost = present & (dp_a <= dp_t), present & (dp_t <= dp_a)
        a_gone = a_lost | (t_lost & kw_t[KW["retaliation"]])
        t_gone = t_lost | (a_lost & kw_a[KW["retaliation"]])
        # Both [On Deletion] sets fire together, the turn player's first, with the survivor's
        # "when this Digimon deletes the Digimon it battles" rows (``won_battle``).
        gone = (self._one_slot(me, a) & a_gone) | (self._one_slot(1 - me, t) & t_gone)
        won = (self._one_slot(me, a) & t_gone & ~a_gone) | (
            self._one_slot(1 - me, t) & a_gone & ~t_gone
        )
        won_pair = (TRIGGER["won_battle"], won) if self._fires_on("won_battle") else ()
        after = self._push(
            state, TRIGGER["on_deletion"], gone, *won_pair, *self._deletion_pair(gone)
        )
        after = self._delete(after, me, a, a_gone, deleted=False)
        after = self._delete(after, 1 - me, t, t_gone, deleted=False)
        pierce = t_lost & ~a_gone & kw_a[KW["piercing"]]
        return tree_where(
            pierce, after.replace(**self._check_fields(checks)), self._end_attack(after)
        )

    def _battling(self, state: DigimonState) -> jax.Array:
        """int32[2, S]: for the attacker and its target Digimon, how many digivolution cards the
        other one has (the ``battling_no_source_digimon`` condition); -1 for the others."""
        me = state.board.active_player.astype(jnp.int32)
        a = jnp.maximum(state.attacker.astype(jnp.int32), 0)
        t = jnp.clip(state.attack_target.astype(jnp.int32), 0, A.FIELD_SLOTS - 1)
        _, size = self.stacks(state)
        battling = jnp.full((2, NUM_SLOTS), -1, jnp.int32)
        return battling.at[me, a].set(size[1 - me, t] - 1).at[1 - me, t].set(size[me, a] - 1)

    @staticmethod
    def _check_fields(state: DigimonState) -> dict:
        return dict(attack_stage=state.attack_stage, checks_left=state.checks_left)

    def _check_step(self, state: DigimonState) -> DigimonState:
        """One security check, in two micro-steps: flip the top security card into ``revealed``
        and queue its [Security] rows; once they have resolved, a Digimon card battles the
        attacker (the attacker is deleted on lower or equal DP unless it has <Jamming>) and the
        card goes to the trash unless an effect moved it. Checks stop when none are left, the
        defender's security is empty, or the attacker has left the battle area."""
        me = state.board.active_player.astype(jnp.int32)
        opp = 1 - me
        security = zone_of("security", opp)
        revealed = self.layout.zone_index("revealed")

        def flip(state):
            top = jnp.maximum(zones.top_card(state.board, security), 0)
            flipped = state.replace(
                board=zones.move_card(self.layout, state.board, top, revealed).board,
                checking=top.astype(jnp.int16),
            )
            return self._push_card(flipped, top, WHERE_SECURITY, TRIGGER["security"])

        def finish(state):  # the check of the flipped card
            card = jnp.maximum(state.checking.astype(jnp.int32), 0)
            still = state.board.zone[card] == revealed
            a = jnp.maximum(state.attacker.astype(jnp.int32), 0)
            perm = self.permanents(state)
            dp_a = perm.dp[me, a]
            dp_s = (
                self._card(state, "dp", card).astype(jnp.int32)
                + self.security_dp_bonus(state, perm)[opp]
            )
            present = zones.zone_count(state.board, slot_zone(me, a)) > 0
            battles = still & present & (self._card(state, "kind", card) == DIGIMON)
            lost = battles & (dp_a <= dp_s) & ~perm.keywords[me, a, KW["jamming"]]
            finished = self._delete(state, me, a, lost)
            trash = zone_of("trash", opp)
            trashed = zones.move_card(self.layout, finished.board, card, trash).board
            out = finished.replace(
                board=tree_where(still, trashed, finished.board),
                checks_left=jnp.maximum(state.checks_left - 1, 0).astype(jnp.int8),
                checking=jnp.int16(-1),
            )
            if not self._after_battle.any():  # host-known: no card plays itself after battle
                return out
            # "At the end of the battle, play this card" (play_self_after_battle; rules 14-2-5):
            # a card that battled enters its owner's battle area free, win or lose (Q685,
            # Q699), when there is room (else the trash, rules 13-1-8); its [On Play] rows
            # queue, so they resolve before the next check (Q686, Q701).
            definition = state.board.definition[card]
            plays = battles & jnp.asarray(self._after_battle)[definition]
            plays &= self._has_room(finished, opp)
            # From where ``out`` left it (the trash) into the lowest free slot.
            return when_any(plays, lambda s: self._put_into_play(s, card, opp), out)

        checking = state.checking >= 0
        can_flip = (state.checks_left > 0) & (zones.zone_count(state.board, security) > 0)
        # Each part runs only when some game of the batch is at it (``when_any``).
        out = self._end_attack(state)
        out = when_any(~checking & can_flip, lambda _: flip(state), out)
        return when_any(checking, lambda _: finish(state), out)

    def _delete(self, state: DigimonState, player, slot, doit, deleted: bool = True):
        """The permanent in ``slot`` of ``player`` leaves play when ``doit``: its whole stack goes
        to its owner's trash and the slot's facts are cleared. ``deleted`` (a deletion, not the
        rest of a stack returned to hand): its [On Deletion] rows fire first (read while its
        cards are still in play)."""
        if deleted:
            mask = self._one_slot(player, slot) & doit
            state = self._push(state, TRIGGER["on_deletion"], mask, *self._deletion_pair(mask))
        trash = zone_of("trash", player)
        source = jnp.where(doit, slot_zone(player, slot), trash)  # a no-op move when not leaving
        board = zones.move_all(self.layout, state.board, source, trash).board
        clear = lambda x, v: x.at[player, slot].set(jnp.where(doit, v, x[player, slot]))  # noqa: E731
        on_it = doit & (state.lasting_player == player) & (state.lasting_slot == slot)
        return state.replace(
            lasting_kind=jnp.where(on_it, 0, state.lasting_kind).astype(jnp.int8),
            board=board,
            suspended=clear(state.suspended, False),
            entered_turn=clear(state.entered_turn, jnp.int16(-1)),
        )

    def forfeit(self, state: DigimonState, loser: jax.Array) -> DigimonState:
        """``loser`` made an illegal move under ``illegal_action="lose"``: the other player wins."""
        return state.replace(winner=(1 - loser).astype(jnp.int8), end_reason=jnp.int8(END_ILLEGAL))
