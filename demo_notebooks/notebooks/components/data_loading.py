"""Dataset access: small synthetic token datasets, generated deterministically (no downloads)."""

from __future__ import annotations

import zlib

import torch
from torch.utils.data import DataLoader, Dataset

DATASET_SPECS = {
    "toy_sentiment": {"num_classes": 2, "seq_len": 16, "vocab_size": 64, "train": 256, "validation": 64, "test": 64},
    "toy_preferences": {"num_classes": 2, "seq_len": 24, "vocab_size": 64, "train": 256, "validation": 64, "test": 64},
}
SPLITS = ("train", "validation", "test")


class SyntheticTokens(Dataset):
    """Token sequences with a label that depends on the tokens, so a model can actually learn it."""

    def __init__(self, tokens: torch.Tensor, labels: torch.Tensor, name: str, split: str) -> None:
        self.tokens, self.labels, self.name, self.split = tokens, labels, name, split

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        return self.tokens[index], self.labels[index]


def _labels(name: str, tokens: torch.Tensor, vocab_size: int) -> torch.Tensor:
    if name == "toy_sentiment":  # more "positive" (low-id) tokens than "negative" ones
        return ((tokens < vocab_size // 2).sum(dim=1) * 2 > tokens.shape[1]).long()
    half = tokens.shape[1] // 2  # preferences: is the first response "better" than the second?
    return (tokens[:, :half].sum(dim=1) > tokens[:, half:].sum(dim=1)).long()


def load_dataset(name: str, split: str = "train", n: int | None = None) -> Dataset:
    """The `split` of dataset `name`; `n` limits the number of rows. Same name and split, same data."""
    if name not in DATASET_SPECS:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(sorted(DATASET_SPECS))}")
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, not {split!r}")
    spec = DATASET_SPECS[name]
    rows = spec[split] if n is None else min(n, spec[split])
    generator = torch.Generator().manual_seed(zlib.crc32(f"{name}:{split}".encode()))
    tokens = torch.randint(spec["vocab_size"], (rows, spec["seq_len"]), generator=generator)
    return SyntheticTokens(tokens, _labels(name, tokens, spec["vocab_size"]), name, split)


def make_loader(dataset: Dataset, batch_size: int = 32, shuffle: bool = True, seed: int = 0) -> DataLoader:
    """A DataLoader whose shuffling is seeded, so every run sees the batches in the same order."""
    generator = torch.Generator().manual_seed(seed)
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, generator=generator)
