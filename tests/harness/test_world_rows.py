"""The world check composes each distinct step once (harness/checks/world.py distinct_rows): the
steps that pose every object alike share one row of words and bounds, spread back to each."""
import numpy as np

from harness.checks.world import distinct_rows


def test_equal_steps_share_a_row_and_every_step_gets_its_own_words_back():
    L = np.array([[1, 2], [5, 6], [1, 2], [1, 2], [5, 7]], dtype=np.uint32)
    tp = np.array([9, 9, 9, 8, 9], dtype=np.uint32)
    first, inv = distinct_rows([L, tp], 5)
    assert len(first) == 4                               # step 3 differs from step 0 in its localtp
    assert (L[first][inv] == L).all() and (tp[first][inv] == tp).all()
    assert inv[0] == inv[2] and len({inv[0], inv[1], inv[3], inv[4]}) == 4


def test_rows_of_one_hash_that_differ_are_told_apart_by_their_words():
    # the hash weighs word k by (2k + 1)·c: (3, 0) and (0, 1) both hash to 3c
    M = np.array([[3, 0], [0, 1], [3, 0]], dtype=np.uint32)
    first, inv = distinct_rows([M], 3)
    assert len(first) == 2 and (M[first][inv] == M).all()


def test_no_posed_object_is_one_row_for_every_step():
    first, inv = distinct_rows([], 4)
    assert list(first) == [0] and list(inv) == [0, 0, 0, 0]
