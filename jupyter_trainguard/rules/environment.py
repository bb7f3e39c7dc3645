"""ENV001: no pinned requirements or lockfile next to a training notebook."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

from ..analysis.usage import usage_of
from .context import NotebookContext
from .registry import Hit, rule

LOCKFILES = ("poetry.lock", "uv.lock", "Pipfile.lock", "pdm.lock", "conda-lock.yml", "pixi.lock")
# patterns (re.M), compiled on first use by `re`: only a folder with requirements or a conda file needs them
_PIN = r"^\s*[A-Za-z0-9_.\-\[\]]+\s*(===?)\s*[\w.*+!-]+"
_CONDA_PIN = r"^\s*-\s*[A-Za-z0-9_.\-]+\s*==?\s*\d"
MAX_UP = 6


def _read(p: Path) -> str:
    try:
        return p.read_text(errors="replace")[:200_000]
    except OSError:
        return ""


_CACHE: dict[str, tuple[tuple, str | None]] = {}
_NAMES = frozenset(LOCKFILES + ("pyproject.toml", "environment.yml", "environment.yaml"))


_LISTED: dict[str, tuple[int, list[str]]] = {}  # folder -> (its mtime, the names in it that may pin)


def _candidates(d: Path) -> list[str]:
    """The file names in `d` that may pin dependencies; the listing is reused while the folder's mtime (which moves
    when an entry is added, removed or renamed) is unchanged and was already 2 s old when it was listed (an entry
    added within the same clock tick as the listing could leave it unchanged)."""
    key, stamp = str(d), os.stat(d).st_mtime_ns
    hit = _LISTED.get(key)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    with os.scandir(d) as it:
        names = sorted(e.name for e in it if e.name in _NAMES or
                       (e.name.startswith("requirements") and e.name.endswith(".txt")))
    if time.time_ns() - stamp > 2_000_000_000:
        if len(_LISTED) > 4096:
            _LISTED.clear()
        _LISTED[key] = (stamp, names)
    return names


def pinned_in(d: Path) -> str | None:
    """The name of a file in `d` that pins dependencies, or None (cached until the folder or those files change)."""
    try:
        mtime = tuple((name, os.stat(d / name).st_mtime) for name in _candidates(d))
    except OSError:
        return None
    hit = _CACHE.get(str(d))
    if hit is not None and hit[0] == mtime:
        return hit[1]
    found = _pinned_in(d)
    if len(_CACHE) > 4096:
        _CACHE.clear()
    _CACHE[str(d)] = (mtime, found)
    return found


def _pinned_in(d: Path) -> str | None:
    for name in LOCKFILES:
        if (d / name).is_file():
            return name
    try:
        reqs = sorted(d.glob("requirements*.txt"))
    except OSError:
        reqs = []
    for r in reqs:
        text = _read(r)
        if re.search(_PIN, text, re.M) or "--hash" in text:
            return r.name
    for name in ("environment.yml", "environment.yaml"):
        if (d / name).is_file() and re.search(_CONDA_PIN, _read(d / name), re.M):
            return name
    pp = d / "pyproject.toml"
    if pp.is_file():
        text = _read(pp)
        if re.search(r"""["'][A-Za-z0-9_.\-\[\]]+\s*==\s*[\w.]+""", text):
            return "pyproject.toml"
    return None


_RESOLVED: dict[str, Path] = {}


def _resolved(p: Path) -> Path:
    """`p.resolve()`, kept per absolute path for the process (one lstat per component otherwise: the guard asks
    before every guarded cell)."""
    if not p.is_absolute():
        return p.resolve()  # relative to the working folder, which may change
    key = str(p)
    hit = _RESOLVED.get(key)
    if hit is None:
        if len(_RESOLVED) > 1024:
            _RESOLVED.clear()
        hit = _RESOLVED[key] = p.resolve()
    return hit


def search_dirs(nb: Path, root: Path | None, folder: Path | None = None) -> list[Path]:
    """The notebook's folder (or `folder`) and its parents up to the config root (or the repository root, at most
    6 up)."""
    out = []
    d = _resolved(folder if folder is not None else nb.parent)
    root_r = _resolved(root) if root is not None else None
    for _ in range(MAX_UP):
        out.append(d)
        if root_r is not None and d == root_r:
            break
        if root_r is None and (d / ".git").exists():
            break
        if d.parent == d:
            break
        d = d.parent
    return out


def all_pinned(path: Path) -> bool | None:
    """For a requirements*.txt: is every requirement pinned with == (or a hash/URL)? None for other lockfiles."""
    if path.suffix != ".txt":
        return None
    reqs = [ln.split("#")[0].strip() for ln in _read(path).splitlines()]
    reqs = [r for r in reqs if r and not r.startswith("-")]
    return bool(reqs) and all("==" in r or "@" in r or "--hash" in r for r in reqs)


def notebook_folder(path: str) -> Path | None:
    """The folder whose environment a notebook runs in: the file's folder; for the live session (a `<session>`
    path) the kernel's working folder, which Jupyter sets to the notebook's; None for other unsaved notebooks."""
    p = Path(path)
    if p.is_file():
        return p.parent
    if path.startswith("<"):
        return Path.cwd()
    return None


def pinning(folder: Path, root: Path | None) -> tuple[Path | None, list[Path]]:
    """(the file that pins the dependencies, or None; the folders searched): the one lookup behind ENV001 and the
    review's environment line, in the kernel and on the command line alike."""
    dirs = search_dirs(folder / "_", root, folder)
    for d in dirs:
        name = pinned_in(d)
        if name:
            return d / name, dirs
    return None, dirs


@rule(
    id="ENV001", name="dependencies-not-pinned", category="reproducibility.environment", severity="warning",
    once_per_project=True,
    rationale="Without pinned requirements or a lockfile, a rerun installs whatever versions are current.",
    impact="Library changes (defaults, numerics, bug fixes) silently change the reported metric.",
    fix="Commit a lockfile (uv.lock, poetry.lock, Pipfile.lock) or `pip freeze > requirements.txt` next to the "
        "notebooks.",
    bad="notebooks/train.ipynb   (no requirements file)", good="notebooks/train.ipynb\nrequirements.txt  "
                                                            "(scikit-learn==1.5.2, ...)",
)
def dependencies_not_pinned(ctx: NotebookContext) -> Iterator[Hit]:
    """Looks next to the notebook and upward to the configuration root (or repository root) for
    requirements*.txt with `==` pins, pyproject with pinned deps, poetry.lock, uv.lock, Pipfile.lock or an
    environment.yml with versions (the live session searches from the kernel's working folder). Skipped for
    notebooks that do not train or have no file on disk. A scan of several notebooks reports it once per project
    (the folder where the search stops), on the first notebook, listing the others."""
    folder = notebook_folder(ctx.path)
    if folder is None or not usage_of(ctx).trains:
        return
    root = ctx.config.root if ctx.config.source is not None else None
    found, dirs = pinning(folder, root)
    if found is not None:
        return
    name = Path(ctx.path).name if Path(ctx.path).is_file() else _live_notebook_name()
    yield Hit(None, None, f"No pinned requirements or lockfile found next to `{name}` or above it (searched "
                          f"{len(dirs)} folder(s) up to `{dirs[-1].name or dirs[-1]}`).",
              evidence={"searched": [str(d) for d in dirs], "project": str(dirs[-1])})


def _live_notebook_name() -> str:
    """The live session's notebook file, when the kernel was told it."""
    import sys

    from ..session_cells import notebook_path

    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    path = notebook_path(shell) if shell is not None else None
    return Path(path).name if path else "this notebook"
