"""The row lattice: wholes contain their parts, parts of one selection are disjoint unless duplicated first."""

from __future__ import annotations

from jupyter_trainguard.analysis.provenance.rows import (
    DUP,
    covered,
    dup_step,
    extend,
    overlap,
    tokens_overlap,
    union,
)

SRC = (("read", 1),)
SPLIT = ("split", 2)
SPLIT2 = ("split", 3)
POS = ("pos", "n")


def test_whole_overlaps_its_parts_and_parts_are_disjoint():
    whole = frozenset({SRC})
    train, test = extend(whole, (SPLIT, "train")), extend(whole, (SPLIT, "test"))
    assert overlap(whole, test) and overlap(train, whole)
    assert overlap(train, test) is None
    assert covered(test, whole) and not covered(whole, test)


def test_positional_halves_are_disjoint_and_a_repeated_slice_is_the_same_rows():
    whole = frozenset({SRC})
    lo, hi = extend(whole, (POS, "lo")), extend(whole, (POS, "hi"))
    assert overlap(lo, hi) is None
    assert overlap(lo, extend(whole, (POS, "lo")))


def test_duplication_before_a_split_makes_its_parts_overlap():
    dup = extend(frozenset({SRC}), (("resample", 9), DUP))
    train, test = extend(dup, (SPLIT, "train")), extend(dup, (SPLIT, "test"))
    pair = overlap(train, test)
    assert pair is not None and dup_step(*pair) == (("resample", 9), DUP)


def test_two_random_splits_of_the_same_rows_share_rows_but_different_sources_never_do():
    a = SRC + ((SPLIT, "test"),)
    b = SRC + ((SPLIT2, "train"),)
    assert tokens_overlap(a, b)
    assert not tokens_overlap(a, (("read", 5),) + ((SPLIT2, "train"),))
    masks = SRC + ((("mask", "df.a > 1"), "sub"),), SRC + ((("mask", "df.a <= 1"), "sub"),)
    assert not tokens_overlap(*masks)  # unrelated selections: never invent an overlap


def test_a_random_part_shares_rows_with_a_subset_picked_by_a_mask() -> None:
    """A random split's part holds a random share of every subset of the rows: a mask's subset (`df.iloc[keep]`)
    split again beside it shares rows. Copies made by resampling are no random draw of the rows: beside a mask,
    nothing is proven."""
    picked = SRC + ((("mask", "keep"), "sub"),)
    assert tokens_overlap(picked + ((SPLIT2, "train"),), SRC + ((SPLIT, "test"),))
    assert tokens_overlap(SRC + ((SPLIT, "test"),), picked)
    assert not tokens_overlap(picked, SRC + ((("resample", 9), DUP),))


def test_a_part_next_to_its_whole_adds_no_rows() -> None:
    src = ("read", 1)
    whole, part = (src,), (src, (("mask", 7), "sub"))
    assert union(frozenset({whole}), frozenset({part})) == frozenset({whole})
    copies = (src, (("resample", 2), DUP))
    assert union(frozenset({whole}), frozenset({copies})) == frozenset({whole, copies})  # copies are kept
    other = (("read", 2),)
    assert union(frozenset({part}), frozenset({other})) == frozenset({part, other})
