"""fastai: a `TabularPandas(df, procs, ..., splits=(train_idx, valid_idx))` keeps the frame's rows and splits them
into `.train` and `.valid` (each with `.xs`, `.y`, `.items`); its procs (`Normalize`, `FillMissing`) learn on the
training part. Splitters (`RandomSplitter(valid_pct=0.2)(range_of(df))`, `IndexSplitter(valid_idx)`,
`ColSplitter('is_valid')`) give the two parts' row positions; `*DataLoaders.from_df(df, valid_idx=...)` split as
those do (a random fifth held out when no validation rows are named). A learner (`tabular_learner(dls)`,
`Learner(dls, model)`) trains on the loaders' training part (`fit_one_cycle`, `fine_tune`), watching the
validation part; `get_preds()` / `validate()` predict and score the validation part (or the `dl=` given)."""

from __future__ import annotations

from .table import ClassRow, FuncRow

FA = ("fastai",)
LOADERS = ("fastai", "TabularDataLoaders", "ImageDataLoaders", "TextDataLoaders", "CollabDataLoaders",
           "SegmentationDataLoaders", "DataLoaders")
INTERPRETERS = ("fastai", "ClassificationInterpretation", "Interpretation")
CLASSES: dict[str, ClassRow] = {
    "TabularPandas": ClassRow("fastai_table", FA),
    "DataBlock": ClassRow("fastai_block", FA),
    "Learner": ClassRow("fastai_learner", FA),
    **{n: ClassRow("fastai_splitter", FA) for n in (
        "RandomSplitter", "TrainTestSplitter", "IndexSplitter", "ColSplitter", "MaskSplitter", "GrandparentSplitter",
        "FuncSplitter", "FileSplitter", "EndSplitter")},
}
FUNCS: dict[str, FuncRow] = {
    **{n: FuncRow("fastai_learner", FA) for n in (
        "tabular_learner", "cnn_learner", "vision_learner", "text_classifier_learner", "collab_learner",
        "unet_learner", "language_model_learner")},
    **{n: FuncRow("fastai_loaders", LOADERS) for n in (
        "from_df", "from_csv", "from_folder", "from_name_func", "from_path_func", "from_name_re", "from_lists",
        "from_label_func")},
    "from_learner": FuncRow("fastai_interp", INTERPRETERS),
}
# the fastai procs that learn values from the training part (Categorify learns a vocabulary only)
LEARNING_PROCS = frozenset({"Normalize", "FillMissing"})
FIT_METHODS = frozenset({"fit", "fit_one_cycle", "fine_tune", "fit_flat_cos", "fit_sgdr"})
SELECTING_CALLBACKS = frozenset({"SaveModelCallback", "EarlyStoppingCallback", "TrackerCallback"})
