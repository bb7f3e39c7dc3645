"""PyTorch and Hugging Face datasets: containers that keep rows, random_split, declared library splits."""

from __future__ import annotations

from .table import ClassRow, FuncRow

TR = ("torch", "torchvision", "torchtext", "torchaudio", "datasets", "tensorflow_datasets")
CLASSES: dict[str, ClassRow] = {
    **{n: ClassRow("data", TR) for n in ("TensorDataset", "DataLoader", "Subset", "ConcatDataset",
                                         "SubsetRandomSampler", "SubsetSampler")},
    "ReduceLROnPlateau": ClassRow("scheduler", ("torch",)),
    # trainer objects: Hugging Face and Lightning
    "Trainer": ClassRow("trainer", ("transformers", "pytorch_lightning", "lightning")),
    "Seq2SeqTrainer": ClassRow("trainer", ("transformers",)),
    "SFTTrainer": ClassRow("trainer", ("trl",)),
    "TrainingArguments": ClassRow("config", ("transformers",)),
    "Seq2SeqTrainingArguments": ClassRow("config", ("transformers",)),
}
FUNCS: dict[str, FuncRow] = {
    "random_split": FuncRow("random_split", ("torch",)),
    **{n: FuncRow("build", ("torch",)) for n in ("tensor", "from_numpy", "as_tensor", "Tensor", "FloatTensor",
                                                 "LongTensor", "stack")},
    "cat": FuncRow("concat", ("torch",)),
    **{n: FuncRow("metric", ("torch",)) for n in ("cross_entropy", "mse_loss", "l1_loss", "nll_loss",
                                                  "binary_cross_entropy", "binary_cross_entropy_with_logits",
                                                  "smooth_l1_loss", "huber_loss")},
    "load_dataset": FuncRow("dataset", ("datasets", "tensorflow_datasets")),
    "load": FuncRow("dataset", ("tensorflow_datasets",)),
}
DATASET_ROOTS = ("torchvision", "torchtext", "torchaudio", "darts")
