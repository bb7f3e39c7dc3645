"""Splits a library declares instead of computing: a dataset's named parts (`MNIST(train=False)`,
`load_dataset(split="test")`, `raw["test"]`) and Keras's `subset=` of one folder or array read with a
`validation_split` (`flow_from_directory(d, subset="validation")`), and windows cut from an array by positions."""

from __future__ import annotations

import ast

from .astutil import const, kw, text
from .values import Val

# the validation subset is the held-out side of the split, as `train_test_split`'s second part is: a validation set
# when a labelled test set of its own is scored after it, else the final test rows
KERAS_SUBSETS = {"training": "train", "validation": "test"}
# torchvision datasets whose part is `train=True` (or `split="train"`) unless the call says otherwise: `MNIST(root)`
# is the training part, never the test part `MNIST(root, train=False)` holds
TRAIN_BY_DEFAULT = frozenset({"MNIST", "FashionMNIST", "KMNIST", "EMNIST", "QMNIST", "CIFAR10", "CIFAR100", "USPS",
                              "SVHN", "STL10", "Flowers102", "Food101", "GTSRB", "DTD", "StanfordCars", "CelebA"})


class Declared:
    """Mixin: library datasets and reads whose split is declared."""

    def declared_split(self, e: ast.Call, args: list, kws: dict) -> Val:
        """A library dataset whose split is declared (`MNIST(train=False)`, `load_dataset(split="test")`)."""
        leaf = self.parsed.qualname(e.func).rsplit(".", 1)[-1]
        default = leaf in TRAIN_BY_DEFAULT and self.parsed.qualname(e.func).startswith("torchvision.")
        pos = e.args[1] if default and len(e.args) > 1 else None  # `MNIST(root, False)`, `SVHN(root, "test")`
        train = kw(e, "train") or (pos if isinstance(const(pos), bool) else None)
        split = const(kw(e, "split")) or (const(pos) if isinstance(const(pos), str) else None) or \
            ("train" if default and train is None and pos is None else None)
        part = None
        if isinstance(train, ast.Constant):
            part = "train" if train.value else "test"
        elif isinstance(split, str):
            part = "test" if split.startswith("test") else "val" if split.startswith("val") else "train"
        key: tuple = ("declared", self.parsed.qualname(e.func))
        root = e.args[0] if e.args else kw(e, "root")
        if key[1].endswith("Folder") and root is not None:  # `ImageFolder(train_dir)`: the folder is the data
            key += (self.file_path(root) or text(root),)  # (`os.path.join(root, x)`, x a known word: that folder)
        src = Val("data", rows=frozenset({(key,)}), site=self.site(e))
        if part is None:
            return src
        return self.declared_part(src, key, part, e)

    def declared_part(self, src: Val, key: object, part: str, e: ast.AST) -> Val:
        """One declared split of a library dataset (`raw["test"]`, `MNIST(train=False)`)."""
        out = self.select(src, ("declared-split", key), part, "split", e)
        if part != "train":
            self.rec.held_out_parts.append(out)
        return out

    def keras_subset(self, src: Val, e: ast.Call) -> Val:
        """`flow_from_directory(d, subset="validation")`, `image_dataset_from_directory(d, validation_split=0.2,
        subset="training")`: the two subsets are the parts of one split of what the folder (or array) holds;
        `subset="both"` returns both. Without `subset` the read is all of it."""
        subset = const(kw(e, "subset"))
        if subset is None:  # `flow_from_directory(d, **kwargs)` in a function called with `subset="training"`
            forwarded = [self.consts.get("**" + k.value.id) for k in e.keywords
                         if k.arg is None and isinstance(k.value, ast.Name)]
            subset = next((f["subset"] for f in forwarded if isinstance(f, dict) and "subset" in f), None)
        if not src.is_data or subset not in ("training", "validation", "both"):
            return src
        key = ("keras-subset", src.rows)
        if subset == "both":
            return Val("seq", items=tuple(self.declared_part(src, key, p, e) for p in ("train", "test")),
                       site=self.site(e))
        return self.declared_part(src, key, KERAS_SUBSETS[subset], e)

    def windows_between(self, e: ast.Call, built: Val) -> Val:
        """`timeseries_dataset_from_array(data, targets, start_index=a, end_index=b)`: windows over the rows from
        `a` to `b` only, a positional cut of `data` (three calls with consecutive bounds: train, validation, test)."""
        lower, upper = kw(e, "start_index"), kw(e, "end_index")
        lower = None if const(lower) == 0 else lower
        if not built.is_data or lower is None and upper is None:
            return built
        return self.select_rows(built, ast.Slice(lower=lower, upper=upper), "iloc", e)
