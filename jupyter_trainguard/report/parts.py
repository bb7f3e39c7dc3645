"""The seven parts of the review, which rules feed which part, and the priority order of fixes."""

from __future__ import annotations

from ..findings import Finding

PARTS: list[tuple[str, str]] = [
    ("reproducibility", "1. Reproducibility verdict"),
    ("split", "2. Split & leakage audit"),
    ("temporal", "3. Temporal correctness"),
    ("checkpointing", "4. Checkpointing"),
    ("tracking", "5. Experiment tracking"),
    ("findings", "6. Findings"),
    ("next", "7. Next safe action"),
]
PART_TITLES = dict(PARTS)

# Category -> descriptive part. Categories not listed (training, pipeline, config, notebook, memory) appear in the
# findings table only, under "other".
CATEGORY_PART: dict[str, str] = {
    "reproducibility.seeding": "reproducibility",
    "reproducibility.determinism": "reproducibility",
    "reproducibility.environment": "reproducibility",
    "reproducibility.order": "reproducibility",
    "leakage.preprocessing": "split",
    "leakage.overlap": "split",
    "leakage.multi-test": "split",
    "leakage.validation": "split",
    "leakage.target": "split",
    "evaluation": "split",
    "leakage.temporal": "temporal",
    "checkpointing": "checkpointing",
    "tracking": "tracking",
}
# Rule-id prefixes that override the category (runtime rules whose category is broad).
PREFIX_PART: dict[str, str] = {"DATA005": "temporal", "TIME": "temporal", "RNG": "reproducibility",
                               "GUARD": "tracking", "CKPT": "checkpointing", "ENV": "reproducibility"}

# The documented priority order for "next safe action": the first category wins, then severity, then location.
# Honesty of the reported metric first (leakage, wrong evaluation), then reproducibility, then resumability and
# provenance, then hygiene.
PRIORITY: list[str] = [
    "leakage.target", "leakage.preprocessing", "leakage.overlap", "leakage.temporal", "leakage.multi-test",
    "leakage.validation", "evaluation", "training", "reproducibility.seeding", "reproducibility.determinism",
    "reproducibility.order", "checkpointing", "tracking", "reproducibility.environment", "config", "memory",
    "pipeline", "notebook",
]


def part_of(rule_id: str, category: str) -> str:
    for prefix, part in PREFIX_PART.items():
        if rule_id.upper().startswith(prefix):
            return part
    return CATEGORY_PART.get(category, "other")


def priority_key(f: Finding) -> tuple:
    cat = PRIORITY.index(f.category) if f.category in PRIORITY else len(PRIORITY)
    loc = f.location
    return (cat, -f.severity.rank, loc.path, loc.cell if loc.cell is not None else -1, loc.line or 0, f.rule_id)


def by_priority(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=priority_key)
