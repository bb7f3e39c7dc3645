"""What a fix run did: changes made (or proposed), things left for a human, and the checklist-shaped report."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

SAFE, UNSAFE = "safe", "unsafe"


@dataclass
class Change:
    """One fix applied (or, with --diff, proposed) at one place."""

    path: str
    rule_id: str
    fixer: str
    safety: str
    where: str  # "cell 3", "new cell after cell 1"
    line: int | None
    summary: str  # short: what changed
    detail: str  # why: the problem and what the change does
    position: float = 0.0  # document position, for sorting (not reported)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("position")
        return out

    def place(self) -> str:
        return self.where + (f", line {self.line}" if self.line else "")


@dataclass
class Left:
    """A finding (or a fix) left for a human, with the reason."""

    path: str
    rule_id: str
    where: str
    line: int | None
    reason: str
    fixer: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def place(self) -> str:
        return self.where + (f", line {self.line}" if self.line else "")


@dataclass
class FileResult:
    path: str
    changes: list[Change] = field(default_factory=list)
    left: list[Left] = field(default_factory=list)
    diff: str = ""
    written: bool = False
    error: str | None = None
    unfixable: dict[str, int] = field(default_factory=dict)  # rule id -> findings that have no automatic fix

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "written": self.written, "error": self.error, "diff": self.diff,
                "changes": [c.to_dict() for c in self.changes], "left": [x.to_dict() for x in self.left],
                "findings_without_fix": dict(sorted(self.unfixable.items()))}


@dataclass
class FixReport:
    files: list[FileResult] = field(default_factory=list)
    diff_only: bool = False
    unsafe: bool = False
    errors: list[str] = field(default_factory=list)

    @property
    def changes(self) -> list[Change]:
        return [c for f in self.files for c in sorted(f.changes, key=lambda c: (c.position, c.line or 0))]

    @property
    def left(self) -> list[Left]:
        return [x for f in self.files for x in f.left]

    @property
    def status(self) -> str:
        """"fixed" when a file was written, else "no_work" (a --diff run writes nothing)."""
        return "fixed" if any(f.written for f in self.files) else "no_work"

    def diff(self) -> str:
        return "".join(f.diff for f in self.files)

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "diff_only": self.diff_only, "unsafe": self.unsafe, "errors": self.errors,
                "changes": [c.to_dict() for c in self.changes], "left": [x.to_dict() for x in self.left],
                "files": [f.to_dict() for f in self.files]}

    def to_text(self) -> str:
        lines = [f"STATUS: {self.status}"]
        proposed = self.diff_only and self.changes
        if proposed:
            lines.append(f"(--diff: {len(self.changes)} change(s) proposed, nothing written)")
        lines.append("")
        lines.append("CHANGES (proposed, not written):" if proposed else "CHANGES:")
        by_file = [f for f in self.files if f.changes]
        if not by_file:
            lines.append("- none")
        for f in by_file:
            parts: dict[str, list[str]] = {}
            for c in sorted(f.changes, key=lambda c: (c.position, c.line or 0)):
                parts.setdefault(c.summary, []).append(c.where)
            text = "; ".join(f"{s} ({', '.join(dict.fromkeys(w))})" for s, w in parts.items())
            lines.append(f"- {f.path}: {text}")
        lines.append("")
        lines.append("DETAILS:")
        if not self.changes:
            lines.append("- nothing to fix automatically" + (" (unsafe fixes included)" if self.unsafe else ""))
        for c in self.changes:
            mark = " UNSAFE: may change behaviour, review it" if c.safety == UNSAFE else ""
            lines.append(f"- {c.path} ({c.place()}) [{c.rule_id} via {c.fixer}, {c.safety}]{mark}: {c.detail}")
        left = self.left
        extra = [f for f in self.files if f.unfixable]
        if left or extra or self.errors:
            lines.append("")
            lines.append("LEFT FOR A HUMAN:")
            for x in left:
                lines.append(f"- {x.path} ({x.place()}) [{x.rule_id}]: {x.reason}")
            for f in extra:
                ids = ", ".join(f"{r}" + (f" x{n}" if n > 1 else "") for r, n in sorted(f.unfixable.items()))
                lines.append(f"- {f.path}: {sum(f.unfixable.values())} other finding(s) have no automatic fix "
                             f"({ids}); run `trainguard scan` to see them")
            for e in self.errors:
                lines.append(f"- {e}")
        return "\n".join(lines)
