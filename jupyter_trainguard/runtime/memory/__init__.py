"""Memory measurement for `%%guarded_train`: backends (CUDA, host RSS, scripted) and the per-cell tracker."""

from .backend import CudaBackend, MemoryBackend, RssBackend, ScriptedBackend, choose_backend
from .tracker import MemoryResult, MemoryTracker

__all__ = ["CudaBackend", "MemoryBackend", "MemoryResult", "MemoryTracker", "RssBackend", "ScriptedBackend",
           "choose_backend"]
