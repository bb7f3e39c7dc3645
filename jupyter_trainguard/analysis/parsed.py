"""Parse a notebook's code cells once, in execution order, with import aliases resolved."""

from __future__ import annotations

import ast
import itertools
import reprlib
import threading
import warnings
from collections import OrderedDict
from collections.abc import Iterator
from functools import cached_property
from typing import Any

from ..findings import FACTORY, Record, factory
from ..notebook.model import Cell, Notebook
from .fields import DataclassFields
from .python2 import parse_python2
from .salvage import salvage

_PARSE_CACHE: OrderedDict[str, tuple[ast.Module | None, SyntaxError | None]] = OrderedDict()
_PARSE_CACHE_SIZE = 4096
_PARSE_LOCK = threading.Lock()


def parse_code(code: str) -> tuple[ast.Module | None, SyntaxError | None]:
    """Parse one cell's code, memoised by its text: the guard re-analyses the whole session before every training
    cell, and a scan meets the same boilerplate cells again and again. Rules treat trees as read-only."""
    with _PARSE_LOCK:
        hit = _PARSE_CACHE.get(code)
        if hit is not None:
            _PARSE_CACHE.move_to_end(code)
            return hit
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result: tuple[ast.Module | None, SyntaxError | None] = (ast.parse(code), None)
    except SyntaxError as exc:
        result = (None, exc)
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, absurd nesting
        err = SyntaxError(f"cannot parse: {type(exc).__name__}")
        err.lineno = 1
        result = (None, err)
    if len(code) < 100_000:
        with _PARSE_LOCK:
            _PARSE_CACHE[code] = result
            if len(_PARSE_CACHE) > _PARSE_CACHE_SIZE:
                _PARSE_CACHE.popitem(last=False)
    return result


class ParsedCell(Record):
    """One code cell parsed: its tree, or the syntax error that stopped the parse. Equality and repr see `cell`,
    `tree` and `syntax_error` only (the other fields are `field(repr=False, compare=False)`)."""

    cell: Cell
    tree: ast.Module | None
    syntax_error: SyntaxError | None = None
    # per-cell pieces of `ParsedNotebook.nodes` / `call_list`, kept while the guard reuses this object for the next
    # analysis of a growing session (the calls with the import aliases they were resolved with)
    _pairs: list[tuple[Cell, ast.AST]] | None = None
    _calls: tuple[object, list[tuple[Cell, ast.Call, str]]] | None = None
    memo: dict[str, Any] = factory(dict)  # other per-cell indexes (usage)
    python2: SyntaxError | None = None  # the tree was read as Python 2: the error Python 3 stops at
    # the tree holds the statements that parse: the error and the (first, last) lines of the statements skipped
    salvaged: tuple[SyntaxError, list[tuple[int, int]]] | None = None
    __dataclass_fields__ = DataclassFields(  # type: ignore[assignment]
        hidden=("_pairs", "_calls", "memo", "python2", "salvaged"))

    def __init__(self, cell: Cell, tree: ast.Module | None, syntax_error: SyntaxError | None = None,
                 _pairs: list[tuple[Cell, ast.AST]] | None = None,
                 _calls: tuple[object, list[tuple[Cell, ast.Call, str]]] | None = None,
                 memo: dict[str, Any] = FACTORY, python2: SyntaxError | None = None,
                 salvaged: tuple[SyntaxError, list[tuple[int, int]]] | None = None) -> None:
        self.cell = cell
        self.tree = tree
        self.syntax_error = syntax_error
        self._pairs = _pairs
        self._calls = _calls
        self.memo = {} if memo is FACTORY else memo
        self.python2 = python2
        self.salvaged = salvaged

    @classmethod
    def of(cls, cell: Cell, code: str) -> ParsedCell:
        """Parse a cell; a cell that only Python 2 syntax stops is read as Python 2, and one that a broken
        statement stops keeps its other statements (each says so)."""
        tree, error = parse_code(code)
        if error is not None:
            old = parse_python2(code)
            if old is not None:
                return cls(cell, old, None, python2=error)
            rest = salvage(code, error)
            if rest is not None:
                return cls(cell, rest[0], None, salvaged=(error, rest[1]))
        return cls(cell, tree, error)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ParsedCell) or other.__class__ is not self.__class__:
            return NotImplemented
        return (self.cell, self.tree, self.syntax_error) == (other.cell, other.tree, other.syntax_error)

    @reprlib.recursive_repr()
    def __repr__(self) -> str:
        return f"{type(self).__qualname__}(cell={self.cell!r}, tree={self.tree!r}, syntax_error={self.syntax_error!r})"

    def node_pairs(self) -> list[tuple[Cell, ast.AST]]:
        """(cell, node) for every node of the tree (empty without one), computed once."""
        if self._pairs is None:
            self._pairs = [] if self.tree is None else list(zip(itertools.repeat(self.cell), tree_nodes(self.tree)))
        return self._pairs

    def call_triples(self, aliases: dict[str, str], key: object) -> list[tuple[Cell, ast.Call, str]]:
        """(cell, call, resolved callee) of this cell; reused while `key` (the aliases' identity) is the same."""
        if self._calls is not None and self._calls[0] is key:
            return self._calls[1]
        calls = [(c, n, qualname(n.func, aliases)) for c, n in self.node_pairs() if isinstance(n, ast.Call)]
        self._calls = (key, calls)
        return calls


class ParsedNotebook(Record):
    """The notebook's code as ASTs, in the order the cells ran, plus name resolution helpers."""

    notebook: Notebook
    cells: list[ParsedCell] = factory(list)  # execution order
    aliases: dict[str, str] = factory(dict)  # local name -> dotted qualified name

    def __init__(self, notebook: Notebook, cells: list[ParsedCell] = FACTORY,
                 aliases: dict[str, str] = FACTORY) -> None:
        self.notebook = notebook
        self.cells = [] if cells is FACTORY else cells
        self.aliases = {} if aliases is FACTORY else aliases

    @classmethod
    def from_notebook(cls, nb: Notebook, previous: ParsedNotebook | None = None) -> ParsedNotebook:
        """Parse `nb`; with `previous` (an earlier parse of the same live session), the `ParsedCell` of every cell
        object it already parsed is reused, with the node and call lists computed for it."""
        parsed = cls(notebook=nb)
        known = {id(pc.cell): pc for pc in previous.cells} if previous is not None else {}
        for cell in nb.execution_order():
            if cell.python is None:
                continue
            pc = known.get(id(cell))
            if pc is None or pc.cell is not cell:
                pc = ParsedCell.of(cell, cell.python)
            parsed.cells.append(pc)
        parsed.aliases = aliases_from_nodes(node for pc in parsed.cells if pc.tree is not None
                                            for node in _imports(pc.tree))
        if previous is not None and previous.aliases == parsed.aliases:
            parsed.aliases_key = previous.aliases_key  # the call lists resolved with these aliases stay valid
        return parsed

    @cached_property
    def aliases_key(self) -> object:
        """Stands for `aliases` in per-cell memos: the same object while a session's import aliases are the same."""
        return object()

    @cached_property
    def star_modules(self) -> tuple[str, ...]:
        """The modules imported with `from module import *`, latest first (their names shadow earlier ones)."""
        found = [n.module for pc in self.cells if pc.tree is not None for n in _imports(pc.tree)
                 if isinstance(n, ast.ImportFrom) and n.module and n.level == 0 and n.names[0].name == "*"]
        return tuple(dict.fromkeys(reversed(found)))

    @cached_property
    def nodes(self) -> list[tuple[Cell, ast.AST]]:
        """Every AST node of every parsed cell (cells in execution order), computed once."""
        out: list[tuple[Cell, ast.AST]] = []
        for pc in self.cells:
            out.extend(pc.node_pairs())
        return out

    @cached_property
    def call_list(self) -> list[tuple[Cell, ast.Call, str]]:
        out: list[tuple[Cell, ast.Call, str]] = []
        key = self.aliases_key
        for pc in self.cells:
            out.extend(pc.call_triples(self.aliases, key))
        return out

    @property
    def trees(self) -> Iterator[tuple[Cell, ast.Module]]:
        for pc in self.cells:
            if pc.tree is not None:
                yield pc.cell, pc.tree

    def walk(self) -> Iterator[tuple[Cell, ast.AST]]:
        """Every AST node of every parsed cell, cells in execution order."""
        return iter(self.nodes)

    def calls(self) -> Iterator[tuple[Cell, ast.Call, str]]:
        """Every call with its resolved qualified name ("" when the callee is not a name chain)."""
        return iter(self.call_list)

    def qualname(self, node: ast.AST) -> str:
        return qualname(node, self.aliases)

    @cached_property
    def imported_modules(self) -> set[str]:
        return {v.split(".")[0] for v in self.aliases.values()}

    def statements(self) -> Iterator[tuple[Cell, ast.stmt]]:
        """Top-level statements of every cell, in execution order."""
        for cell, tree in self.trees:
            yield from ((cell, s) for s in tree.body)


def tree_nodes(tree: ast.Module) -> list[ast.AST]:
    """`walk_list` of a parsed cell, kept on the (memoised, read-only) tree: a session re-analysed before every
    guarded cell walks each earlier cell once."""
    nodes = getattr(tree, "_tg_nodes", None)
    if nodes is None:
        nodes = walk_list(tree)
        tree._tg_nodes = nodes  # type: ignore[attr-defined]
    return nodes


def _imports(tree: ast.Module) -> list[ast.AST]:
    found = getattr(tree, "_tg_imports", None)
    if found is None:
        found = [n for n in tree_nodes(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
        found += [n for n in tree.body if isinstance(n, ast.Assign) and len(n.targets) == 1 and
                  isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Attribute)]
        tree._tg_imports = found  # type: ignore[attr-defined]
    return found


def walk_list(tree: ast.AST) -> list[ast.AST]:
    """Every node of `tree`, in the same breadth-first order as `ast.walk`, without its generator overhead."""
    out = [tree]
    i = 0
    ast_type = ast.AST
    while i < len(out):
        node = out[i]
        i += 1
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                out.extend(x for x in value if isinstance(x, ast_type))
            elif isinstance(value, ast_type):
                out.append(value)
    return out


def collect_aliases(trees) -> dict[str, str]:
    """Local name -> qualified name for every import in the trees."""
    return aliases_from_nodes(n for tree in trees for n in ast.walk(tree)
                              if isinstance(n, (ast.Import, ast.ImportFrom)))


def aliases_from_nodes(import_nodes) -> dict[str, str]:
    aliases: dict[str, str] = {}
    for node in import_nodes:
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    aliases[a.asname] = a.name
                else:
                    root = a.name.split(".")[0]
                    aliases.setdefault(root, root)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                if a.name != "*":
                    aliases[a.asname or a.name] = f"{node.module}.{a.name}"
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            mod = "." * node.level + (node.module or "")
            for a in node.names:
                if a.name != "*":
                    aliases[a.asname or a.name] = f"{mod}.{a.name}"
        elif isinstance(node, ast.Assign):  # `imdb = keras.datasets.imdb`: a module's member bound to a name
            root, _, rest = dotted(node.value).partition(".")
            if root in aliases and rest:
                aliases[node.targets[0].id] = f"{aliases[root]}.{rest}"  # type: ignore[attr-defined]
    return aliases


def dotted(node: ast.AST) -> str:
    """`a.b.c` for a Name/Attribute chain, "" otherwise."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def qualname(node: ast.AST, aliases: dict[str, str]) -> str:
    """Resolve a callee through import aliases: `np.random.seed` -> `numpy.random.seed`.

    For a chained call such as `torch.nn.Linear(2, 3).to(dev)` the method part is returned as `.to`.
    """
    name = dotted(node)
    if not name:
        if isinstance(node, ast.Attribute):
            return "." + node.attr
        return ""
    root, _, rest = name.partition(".")
    if root in aliases:
        target = aliases[root]
        return f"{target}.{rest}" if rest else target
    return name


def last_part(name: str) -> str:
    return name.rsplit(".", 1)[-1]
