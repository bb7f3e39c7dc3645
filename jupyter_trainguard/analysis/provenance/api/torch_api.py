"""PyTorch and Hugging Face datasets: containers that keep rows, random_split, declared library splits."""

from __future__ import annotations

from .table import ClassRow, FuncRow

TR = ("torch", "torchvision", "torchtext", "torchaudio", "datasets", "tensorflow_datasets")
CLASSES: dict[str, ClassRow] = {
    **{n: ClassRow("data", TR) for n in ("TensorDataset", "DataLoader", "Subset", "ConcatDataset")},
}
FUNCS: dict[str, FuncRow] = {
    "random_split": FuncRow("random_split", ("torch",)),
    **{n: FuncRow("build", ("torch",)) for n in ("tensor", "from_numpy", "as_tensor", "Tensor", "FloatTensor",
                                                 "LongTensor", "stack")},
    "cat": FuncRow("concat", ("torch",)),
    "load_dataset": FuncRow("dataset", ("datasets", "tensorflow_datasets")),
    "load": FuncRow("dataset", ("tensorflow_datasets",)),
}
DATASET_ROOTS = ("torchvision", "torchtext", "torchaudio")
