"""Row types of the API table."""

from __future__ import annotations

from ....findings import FrozenRecord


class ClassRow(FrozenRecord):
    """A library class.

    role: transformer (learns statistics on fit, applies them on transform) | stateless (a transformer that
    learns nothing from rows) | model | pipeline | search | resampler (oversampling: duplicates rows) |
    undersampler | splitter | data (a container that keeps its arguments' rows) | torch (a network trained in a
    user loop) | augmenter (an image generator: `fit` learns statistics when asked to).
    vocab: the statistics are only a vocabulary/category list (encoders), not values.
    vocab_when: (keyword, value): a vocabulary only when built with that keyword value (a tuple: one of those
    values, None standing for the keyword left out).
    bound: the data is given to the constructor (`sm.OLS(y, X)`): positions of (X, y).
    fitted_by: the constructor fits on its first positional argument or one of these keywords
    (`Word2Vec(sentences=corpus)`).
    """

    role: str
    roots: tuple[str, ...] = ()
    vocab: bool = False
    bound: tuple[int, int] | None = None
    vocab_when: tuple[str, object] | None = None
    fitted_by: tuple[str, ...] = ()

    def __init__(self, role: str, roots: tuple[str, ...] = (), vocab: bool = False,
                 bound: tuple[int, int] | None = None, vocab_when: tuple[str, object] | None = None,
                 fitted_by: tuple[str, ...] = ()) -> None:
        self.__dict__.update(role=role, roots=roots, vocab=vocab, bound=bound, vocab_when=vocab_when,
                             fitted_by=fitted_by)


class FuncRow(FrozenRecord):
    """A library function.

    effect: split | random_split | array_split | cv | metric | read | build | concat | merge | stateless |
    scale (fit and transform at once) | statistic | train (native booster training) | resample (bootstrap) |
    dataset (a library dataset whose split is declared) | load_split (a loader returning (train, test)) |
    curve (fits a curve's parameters to rows: a model) | curve_apply (a fitted curve evaluated at new points) |
    calendar (dates between bounds: no rows, nothing learned) | clone / copy (an estimator copied, unfitted or
    fitted) | shuffle (each argument's rows, reordered alike) | importance (columns ranked on the rows given:
    `permutation_importance`) | shows_ranking (a fitted ranking displayed: eli5's `show_weights`).
    """

    effect: str
    roots: tuple[str, ...] = ()

    def __init__(self, effect: str, roots: tuple[str, ...] = ()) -> None:
        self.__dict__.update(effect=effect, roots=roots)
