"""The row lattice: which rows a value holds, as a set of row tokens.

A token is a path `(source, step, step, ...)`: the data source it was read or built from, then every row
selection applied to it. A step is `(selection id, part)`: a split call and the part taken (`train`/`test`/...),
a positional slice (`("pos", "n")`, `lo`/`hi`), a boolean mask, a fold index, or a resampling (`dup`).

Two tokens share rows when one is a prefix of the other (a whole and its part). Two parts of one selection are
disjoint, unless the rows were resampled (duplicated) before that selection. Two unrelated selections of the same
rows are assumed disjoint: the analysis never invents an overlap it cannot prove.
"""

from __future__ import annotations

import ast

from ...findings import FACTORY, Record, factory

Token = tuple
Rows = frozenset
NO_ROWS: frozenset = frozenset()
MAX_TOKENS = 24  # a value built from more sources than this keeps the first ones (row sets stay small)
DUP = "dup"


class Selection(Record, eq=False):
    """Where rows were selected: a split call, a slice, a mask, folds or a resampling."""

    key: object
    kind: str  # split | folds | slice | mask | resample
    site: object  # values.Site
    shuffle: bool = True
    loops: tuple = ()  # the loops over settings whose every pass selects other rows here
    again: list = factory(list)  # later calls that made this very selection (a seeded split repeated): their sites

    def __init__(self, key: object, kind: str, site: object, shuffle: bool = True, loops: tuple = (),
                 again: list = FACTORY) -> None:
        self.key = key
        self.kind = kind
        self.site = site
        self.shuffle = shuffle
        self.loops = loops
        self.again = [] if again is FACTORY else again

    def site_before(self, at: object) -> object:
        """The last call that made this selection and ran before `at` (a site), else the first."""
        ran = [s for s in [self.site, *self.again] if at is not None and s.ran_at() <= at.ran_at()]
        return ran[-1] if ran else self.site


RANDOM = frozenset({"split", "folds", "sample", "resample"})  # (two bootstraps of the same rows share rows)
_DRAWN = frozenset({"split", "folds", "sample"})  # random parts that make no copies
_PICKED = frozenset({"mask", "null"})  # subsets picked by a test of the rows (`df[keep]`, `df[df.age.notnull()]`)


def tokens_overlap(a: Token, b: Token, slices: bool = True) -> bool:
    """Whether two row tokens can hold a common row (`slices`: whether constant slice bounds may prove it; not
    where the rows are read through sliding windows, whose first rows are only context)."""
    if a[0] != b[0]:
        return False
    dup = False
    for sa, sb in zip(a[1:], b[1:]):
        if sa == sb:
            dup = dup or sa[1] == DUP
            continue
        if sa[0] == sb[0]:
            return dup  # two parts of one selection: disjoint unless the rows were duplicated before it
        if positional(sa, sb):
            # two slices of the same rows: they overlap when their constant bounds prove it (`[:800]`, `[700:]`)
            return dup or slices and sa == a[-1] and sb == b[-1] and slices_overlap(sa, sb)
        # two different random selections of the same rows (a second split, folds after a split) share rows; so
        # do a random selection and a subset picked by a mask (`df.iloc[keep]` beside a split of `df`)
        ka, kb = key_kind(sa[0]), key_kind(sb[0])
        if ka == kb == "null" and "*" in (sa[0][1], sb[0][1]):  # `df.dropna()` beside a null test of one column
            return {sa[1], sb[1]} != {"not", "sub"}
        return ka in RANDOM and kb in RANDOM or ka in _PICKED and kb in _DRAWN or kb in _PICKED and ka in _DRAWN
    return True


POSITIONAL = frozenset({"pos", "tail"})
_END = (1, 0)


def _bounds(step: tuple) -> tuple[tuple, tuple] | None:
    """A slice step as [start, stop) with each bound (0, offset from the first row) or (1, offset from the end);
    None unless its bounds are integer literals."""
    key, part = step
    try:
        vals = [int(v) for v in key[1:]]
    except (TypeError, ValueError):
        return None

    def at(v: int) -> tuple:
        return (1, v) if v < 0 else (0, v)

    if key[0] == "tail" and vals and vals[0] > 0:
        return (1, -vals[0]), _END
    if key[0] != "pos" or not vals:
        return None
    if part == "lo":
        return (0, 0), at(vals[0])
    if part == "hi":
        return at(vals[0]), _END
    if part == "mid" and len(vals) == 2:
        return at(vals[0]), at(vals[1])
    return None


def _before(x: tuple, y: tuple) -> bool:
    """Start `x` is certainly before stop `y` (whatever the number of rows, given both slices hold rows: the first
    row comes before any stop, any start before the end)."""
    return x[1] < y[1] if x[0] == y[0] else y == _END or x == (0, 0)


def slices_overlap(sa: tuple, sb: tuple) -> bool:
    """Two constant slices of the same rows provably share a row (`X[:800]` and `X[700:]`, `X[:-200]` and
    `X[-300:]`); unknown bounds (`X[:n]`, `X[m:]`) prove nothing."""
    a, b = _bounds(sa), _bounds(sb)
    if a is None or b is None:
        return False
    return _before(a[0], b[1]) and _before(b[0], a[1])


def mask_key(label: str, indexes: list) -> tuple:
    """The key of rows picked by an index of unknown meaning: one built from a random part's rows (`[i for i in
    df.index if i not in seen]`, `seen` the labels a split drew) is a membership test against that part, so it
    proves no overlap with it ("member"); else a subset picked by a mask, which any random part shares rows with.
    `indexes`: the index's value and the values of the names it reads."""
    drawn = any(key_kind(key) in _DRAWN for v in indexes for tok in getattr(v, "rows", None) or ()
                for key, _part in tok[1:])
    return ("member" if drawn else "mask", label)


def positional(*steps: tuple) -> bool:
    """Every one of these selection steps is a positional cut (a slice, `head`, `tail`)."""
    return all(key_kind(st[0]) in POSITIONAL for st in steps)


def key_kind(key: object) -> object:
    """What made a selection key (`split`, `pos`, `resample`...)."""
    return key[0] if isinstance(key, tuple) and key else None


def overlap(a: frozenset, b: frozenset, slices: bool = True) -> tuple[Token, Token] | None:
    """A pair of overlapping tokens of two row sets, or None when they are disjoint."""
    for ta in a:
        for tb in b:
            if tokens_overlap(ta, tb, slices):
                return ta, tb
    return None


def stable_overlap(a: frozenset, b: frozenset, slices: bool = True) -> tuple[Token, Token] | None:
    """`overlap`, choosing the same pair on every run (set order follows string hashing, which varies): for the
    path a finding reports."""
    for ta in sorted(a, key=repr):
        for tb in sorted(b, key=repr):
            if tokens_overlap(ta, tb, slices):
                return ta, tb
    return None


def covered(part: frozenset, whole: frozenset) -> bool:
    """Every row of `part` is in `whole` (each token has a prefix in `whole`)."""
    if not part:
        return False
    return all(any(tw == tp[: len(tw)] for tw in whole) for tp in part)


def extend(rows: frozenset, step: tuple) -> frozenset:
    """The rows after a selection step."""
    return frozenset(t + (step,) for t in rows)


def union(*sets: frozenset) -> frozenset:
    """The rows of all these sets. A part next to its whole adds no rows (`pd.concat([df, df[mask]['c']],
    axis=1)` holds the rows of `df`): it is dropped, unless copies were made on the way (resampling)."""
    out: set = set()
    for s in sets:
        out.update(s)
    if len(out) > 1:
        out = {t for t in out if not _absorbed(t, out)}
    if len(out) > MAX_TOKENS:
        out = set(sorted(out, key=len)[:MAX_TOKENS])
    return frozenset(out)


def _absorbed(tok: Token, among: set) -> bool:
    """`tok` is a part of another token in `among`, reached without making copies."""
    return any(tok[:i] in among for i in range(1, len(tok))) and all(st[1] != DUP for st in tok[1:])


def separating_step(whole: Token, part: Token) -> tuple | None:
    """The first selection step that took `part` out of `whole` (None when `part` is not below `whole`)."""
    if len(part) > len(whole) and part[: len(whole)] == whole:
        return part[len(whole)]
    return None


def dup_step(a: Token, b: Token) -> tuple | None:
    """The resampling step two overlapping tokens share, when that is why they overlap."""
    for sa, sb in zip(a[1:], b[1:]):
        if sa != sb:
            break
        if sa[1] == DUP:
            return sa
    return None


def unfilled(rows: frozenset) -> bool:
    """Rows of an empty frame (`pd.DataFrame()`) that no column with rows has been written into yet."""
    return len(rows) == 1 and all(len(tok) == 1 and tok[0][0] == "empty" for tok in rows)


def repeats_rows(parts: list) -> bool:
    """Stacking parts that share rows (data with itself, or with a transformed copy) duplicates rows. Parts
    taken by different literal keys (`s['2016']` and `s['2017']`: other index labels, or other columns) hold
    other values: stacking them copies nothing."""
    data = [p for p in parts if p is not None and p.is_data and p.rows]
    for i, a in enumerate(data):
        for b in data[i + 1:]:
            if overlap(a.rows, b.rows) is not None and not _other_keys(a, b):
                return True
    return False


def _other_keys(a, b) -> bool:
    keys = [v.site.node.slice.value if v.site is not None and isinstance(v.site.node, ast.Subscript) and
            isinstance(v.site.node.slice, ast.Constant) else None for v in (a, b)]
    return None not in keys and keys[0] != keys[1]


def by_value(step: tuple) -> tuple:
    """A selection step as (selection, part), where the rows a column equals one value are that value's part of
    one selection by the column's values (`df[df.part == 'test']`: the value `'test'` of `df['part']`); other steps as
    they are."""
    key, part = step
    if part == "sub" and isinstance(key, tuple) and key[0] == "mask" and " =/= " in key[1]:
        left, _eq, value = key[1].partition(" =/= ")
        return ("mask", left + " =/= "), value
    return step
