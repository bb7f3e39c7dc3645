"""What the notebooks ask of the components: their calls into the package and their configuration constants."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..analysis.parsed import ParsedNotebook
from ..config import Config
from ..notebook.load import iter_notebook_paths, load_notebook
from .result import display_path
from .sources import CallSite, ComponentModule, Link, calls_in_nodes


@dataclass
class NotebookUse:
    path: str
    sites: list[CallSite] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    constants: list[tuple[str, Any, ast.AST]] = field(default_factory=list)  # (NAME, value, node)


def _notebook_paths(config: Config, comp_dir: Path) -> list[Path]:
    files, _ = iter_notebook_paths([config.root])
    comp = comp_dir.resolve()
    out = []
    for f in files:
        if comp in f.resolve().parents:
            continue
        if (config.standard or config.experimental) and config.notebook_kind(f) == "other":
            continue
        out.append(f)
    return out


def notebook_uses(config: Config, package: str, by_name: dict[str, ComponentModule], comp_dir: Path
                  ) -> list[NotebookUse]:
    """Calls into the components and literal UPPERCASE constants of every configured notebook."""
    uses = []
    for path in _notebook_paths(config, comp_dir):
        nb = load_notebook(path)
        if nb.error:
            continue
        parsed = ParsedNotebook.from_notebook(nb)
        use = NotebookUse(display_path(path))
        nodes: list[ast.AST] = []
        for cell, tree in parsed.trees:
            for node in ast.walk(tree):
                node._tg_cell = cell  # type: ignore[attr-defined]  # where a finding on this node points
                nodes.append(node)
            for stmt in tree.body:
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                        and stmt.targets[0].id.isupper():
                    try:
                        value = ast.literal_eval(stmt.value)
                    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                        continue
                    use.constants.append((stmt.targets[0].id, value, stmt))
        use.sites, use.links = calls_in_nodes(nodes, parsed.aliases, package, by_name)
        uses.append(use)
    return uses
