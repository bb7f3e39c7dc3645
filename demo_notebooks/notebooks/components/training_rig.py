"""Model set-up: a tiny GPT-2-like base model, frozen, with a disposition head attached at chosen blocks."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

DISPOSITIONS = ("aversion", "empathy", "coherence", "humility")
N_BLOCKS = 12  # the depth of GPT-2 small; positions are 0..N_BLOCKS-1


@dataclass(frozen=True)
class TinyGPT2Config:
    vocab_size: int = 64
    n_positions: int = 64
    n_embd: int = 32
    n_head: int = 2
    n_layer: int = N_BLOCKS


class GPT2Block(nn.Module):
    """Pre-norm transformer block with causal self-attention, as in GPT-2."""

    def __init__(self, cfg: TinyGPT2Config) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(cfg.n_embd)
        self.attn = nn.MultiheadAttention(cfg.n_embd, cfg.n_head, batch_first=True)
        self.ln_2 = nn.LayerNorm(cfg.n_embd)
        hidden = 4 * cfg.n_embd
        self.mlp = nn.Sequential(nn.Linear(cfg.n_embd, hidden), nn.GELU(), nn.Linear(hidden, cfg.n_embd))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = x.shape[1]
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool, device=x.device), diagonal=1)
        h = self.ln_1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.ln_2(x))


class TinyGPT2(nn.Module):
    """Token and position embeddings, `n_layer` blocks and a final layer norm."""

    def __init__(self, cfg: TinyGPT2Config) -> None:
        super().__init__()
        self.cfg = cfg
        self.wte = nn.Embedding(cfg.vocab_size, cfg.n_embd)
        self.wpe = nn.Embedding(cfg.n_positions, cfg.n_embd)
        self.h = nn.ModuleList(GPT2Block(cfg) for _ in range(cfg.n_layer))
        self.ln_f = nn.LayerNorm(cfg.n_embd)


class RiggedModel(nn.Module):
    """The base model with an extra GPT2Block attached after each chosen block, and a classifier head."""

    def __init__(self, base: TinyGPT2, positions: list[int], num_classes: int) -> None:
        super().__init__()
        self.base = base
        self.positions = sorted(set(positions))
        self.attached = nn.ModuleDict({str(p): GPT2Block(base.cfg) for p in self.positions})
        self.classifier = nn.Linear(base.cfg.n_embd, num_classes)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        pos = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.base.wte(tokens) + self.base.wpe(pos)
        for i, block in enumerate(self.base.h):
            x = block(x)
            if str(i) in self.attached:
                x = self.attached[str(i)](x)
        return self.classifier(self.base.ln_f(x).mean(dim=1))


class TrainingRig:
    """Builds the model for one disposition: frozen base, GPT2Block(s) attached at `positions`, classifier head."""

    model: nn.Module

    def __init__(self, component: str, positions: list[int], *, num_classes: int = 2, vocab_size: int = 64,
                 seed: int = 0, freeze_base: bool = True) -> None:
        if component not in DISPOSITIONS:
            raise ValueError(f"unknown disposition {component!r}; supported: {', '.join(DISPOSITIONS)}")
        if not positions:
            raise ValueError("positions must name at least one block")
        bad = [p for p in positions if not 0 <= int(p) < N_BLOCKS]
        if bad:
            raise ValueError(f"positions {bad} outside 0..{N_BLOCKS - 1}")
        self.component = component
        self.positions = [int(p) for p in positions]
        torch.manual_seed(seed)
        self.base = TinyGPT2(TinyGPT2Config(vocab_size=vocab_size))
        self.model = RiggedModel(self.base, self.positions, num_classes)
        if freeze_base:
            self.freeze_layers()

    def freeze_layers(self, upto: int | None = None) -> int:
        """Freeze the base model (all of it, or blocks below `upto`); returns the number of frozen tensors."""
        frozen = 0
        for name, param in self.base.named_parameters():
            block = int(name.split(".")[1]) if name.startswith("h.") else -1
            if upto is None or block < upto:
                param.requires_grad_(False)
                frozen += 1
        return frozen

    def trainable_parameters(self) -> list[nn.Parameter]:
        return [p for p in self.model.parameters() if p.requires_grad]

    def describe(self) -> dict:
        total = sum(p.numel() for p in self.model.parameters())
        trainable = sum(p.numel() for p in self.trainable_parameters())
        return {"component": self.component, "positions": self.positions, "parameters": total,
                "trainable_parameters": trainable}
