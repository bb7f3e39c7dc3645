"""Map an API path (relative to the server root) to a file, refusing anything that escapes the root."""

from __future__ import annotations

from pathlib import Path


class PathRefused(Exception):
    """The requested path is not allowed; `status` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def resolve_in_root(root_dir: str, api_path: str, allow_hidden: bool = True) -> Path:
    """Return the real file for `api_path`, resolved (symlinks followed) and checked to lie inside the root.

    Raises `PathRefused(400)` for an empty path, `(403)` for anything resolving outside the root (absolute
    paths, `..`, symlinks out), `(404)` for hidden or missing files and non-files.
    """
    if not api_path or not api_path.strip("/"):
        raise PathRefused(400, "query argument 'path' is required")
    if "\x00" in api_path:
        raise PathRefused(400, "invalid path")
    root = Path(root_dir).expanduser().resolve()
    rel = api_path.replace("\\", "/").lstrip("/")
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if not allow_hidden and any(p.startswith(".") and p != ".." for p in parts):
        raise PathRefused(404, f"no such notebook: {api_path}")
    candidate = root.joinpath(*parts)
    try:
        full = candidate.resolve(strict=False)
    except (OSError, RuntimeError):  # symlink loops
        raise PathRefused(404, f"no such notebook: {api_path}") from None
    if full != root and root not in full.parents:
        raise PathRefused(403, "path is outside the server root")
    if not full.exists():
        raise PathRefused(404, f"no such notebook: {api_path}")
    if not full.is_file():
        raise PathRefused(404, f"not a file: {api_path}")
    return full
