"""The effect interpreter's records (tcgjax/core/effects.py): the queue of rows waiting to resolve
and the pending selection, under jit and vmap."""

import jax
import jax.numpy as jnp
import numpy as np

from tcgjax.core.effects import EffectQueue, Selection


def entries(queue):
    return [
        (int(c), int(r), int(s))
        for c, r, s in zip(queue.card, queue.row, queue.slot, strict=True)
        if c >= 0
    ]


def test_append_keeps_order_after_the_waiting_entries_and_skips_invalid():
    q = EffectQueue.empty(4).append([7, 8], [0, 1], [2, 2], [True, True])
    q = q.append([9, 10, 11], [3, 4, 5], [-1, -1, -1], [True, False, True])
    assert entries(q) == [(7, 0, 2), (8, 1, 2), (9, 3, -1), (11, 5, -1)]
    assert int(q.count()) == 4 and q.card.dtype == jnp.int16 and q.row.dtype == jnp.int8


def test_append_beyond_the_size_drops_the_excess():
    q = EffectQueue.empty(2).append([1, 2, 3], [0, 0, 0], [0, 0, 0], [True] * 3)
    assert entries(q) == [(1, 0, 0), (2, 0, 0)]


def test_head_pop_and_push_front():
    q = EffectQueue.empty(3).append([5, 6], [1, 2], [0, 1], [True, True])
    assert tuple(int(x) for x in q.head()) == (5, 1, 0)
    q = q.pop()
    assert entries(q) == [(6, 2, 1)] and not bool(q.is_empty())
    q = q.push_front(4, 0, -1)
    assert entries(q) == [(4, 0, -1), (6, 2, 1)]
    assert int(q.group[0]) == -1  # no group unless one is given (not part of any event's group)
    assert [int(g) for g in EffectQueue.empty(2).append([4], [0], [0], [True]).group] == [-1, -1]
    assert int(q.push_front(3, 1, 0, group=2).group[0]) == 2
    q = q.pop().pop()
    assert bool(q.is_empty()) and int(q.head()[0]) == -1 and int(q.count()) == 0


def test_queue_under_jit_and_vmap_matches_single_queues():
    def program(cards, valid):
        q = EffectQueue.empty(4).append(cards, jnp.arange(3), jnp.zeros(3, jnp.int32), valid)
        return q.pop().push_front(cards[0] + 100, 9, 1)

    cards = jnp.asarray([[1, 2, 3], [4, 5, 6]])
    valid = jnp.asarray([[True, False, True], [False, True, True]])
    batched = jax.jit(jax.vmap(program))(cards, valid)
    for i in range(2):
        single = program(cards[i], valid[i])
        for a, b in zip(jax.tree.leaves(single), jax.tree.leaves(batched), strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b)[i])
    assert entries(jax.tree.map(lambda x: x[0], batched)) == [(101, 9, 1), (3, 2, 0)]


def test_selection_open_and_none():
    none = Selection.none()
    assert not bool(none.pending()) and int(none.picked) == -1
    sel = Selection.open(12, 3, 0, 2, resume=4)
    assert bool(sel.pending())
    assert (int(sel.card), int(sel.row), int(sel.left), int(sel.stage), int(sel.resume)) == (
        12,
        3,
        2,
        0,
        4,
    )
    assert jax.tree.map(lambda x: x.dtype, sel) == jax.tree.map(lambda x: x.dtype, none)
    batched = jax.vmap(lambda c: Selection.open(c, 0, 1, 1, 2))(jnp.asarray([-1, 5]))
    assert np.asarray(batched.pending()).tolist() == [False, True]


def test_an_empty_entry_is_minus_one_in_every_field():
    """One padding for unused entries (-1 in card, row and slot), whatever led to them: states are
    compared, hashed into replay digests and written to JSON field by field."""
    q = EffectQueue.empty(3)
    for field in (q.card, q.row, q.slot):
        np.testing.assert_array_equal(field, [-1, -1, -1])
    q = q.append([5, 6], [1, 2], [0, 1], [True, True]).pop()
    np.testing.assert_array_equal(q.card, [6, -1, -1])
    np.testing.assert_array_equal(q.row, [2, -1, -1])
    np.testing.assert_array_equal(q.slot, [1, -1, -1])


def test_no_selection_and_a_new_one_use_one_padding():
    """Nothing pending is -1 in card, row, slot, picked and resume (0 left, stage 0); a new selection has
    picked nothing yet (-1): the padding is one value, as for the queue's empty entries."""
    none = Selection.none()
    assert [int(none.card), int(none.row), int(none.slot), int(none.picked)] == [-1, -1, -1, -1]
    assert [int(none.left), int(none.stage), int(none.resume)] == [0, 0, -1]
    sel = Selection.open(12, 3, 0, 2, resume=4)
    assert int(sel.picked) == -1


def test_card_instance_zero_is_an_entry():
    """Card instance 0 is a card like any other: only -1 marks an empty entry."""
    q = EffectQueue.empty(3).append([0], [2], [1], [True])
    assert int(q.count()) == 1 and not bool(q.is_empty())
    assert entries(q) == [(0, 2, 1)] and tuple(int(x) for x in q.head()) == (0, 2, 1)


def test_next_group_of_a_full_queue_of_distinct_groups_is_the_size():
    """A queue of Q entries in Q different groups (0 .. Q-1) leaves Q as the smallest unused
    group: the candidates run to Q, never wrapping to a group in use. Freed groups come back
    smallest first."""
    size = 4
    q = EffectQueue.empty(size)
    for g in range(size):
        q = q.append([10 + g], [0], [0], [True], group=g)
    assert int(q.count()) == size
    assert int(q.next_group()) == size
    assert int(jax.jit(EffectQueue.next_group)(q)) == size
    assert int(q.pop().next_group()) == 0
    assert int(EffectQueue.empty(size).next_group()) == 0
    # Card instance 0 is a card: its entry's group is in use.
    assert int(EffectQueue.empty(size).append([0], [0], [0], [True], group=0).next_group()) == 1


def _queue(cards, groups):
    """A packed queue of these cards (rows 0, 1, ..., slot 0) with these groups, -1s after."""
    q = EffectQueue.empty(4)
    for i, (card, group) in enumerate(zip(cards, groups, strict=True)):
        q = q.append([card], [i], [0], [True], group=group)
    return q


def test_to_front_moves_the_chosen_entries_first_and_settles_them():
    # Card instance 0 is a card: chosen or not, it is an entry like any other.
    q = _queue([3, 0, 6], [2, 2, 2]).to_front(jnp.asarray([False, True, False, False]))
    assert [int(c) for c in q.card] == [0, 3, 6, -1]
    assert [int(g) for g in q.group] == [-1, 2, 2, -1]  # the chosen one settled, the others wait
    assert [int(r) for r in q.row] == [1, 0, 2, -1]
    # The unchosen waiting entries keep their order, card 0 among them, and stay before the
    # empty ones.
    q = _queue([3, 0, 6], [1, 2, 2]).to_front(jnp.asarray([True, False, False, False]))
    assert [int(c) for c in q.card] == [3, 0, 6, -1] and [int(g) for g in q.group] == [-1, 2, 2, -1]
    q = _queue([5, 6], [1, 1]).to_front(jnp.asarray([False, True, False, False]))
    assert [int(c) for c in q.card] == [6, 5, -1, -1] and [int(g) for g in q.group] == [
        -1,
        1,
        -1,
        -1,
    ]
    # Choosing an empty entry chooses nothing: the queue stays packed.
    q = _queue([5, 6], [1, 1]).to_front(jnp.asarray([False, False, True, False]))
    assert [int(c) for c in q.card] == [5, 6, -1, -1] and [int(g) for g in q.group] == [
        1,
        1,
        -1,
        -1,
    ]
    jitted = jax.jit(EffectQueue.to_front)(
        _queue([3, 0, 6], [2, 2, 2]), jnp.asarray([0, 1, 0, 0], bool)
    )
    assert [int(c) for c in jitted.card] == [0, 3, 6, -1]
