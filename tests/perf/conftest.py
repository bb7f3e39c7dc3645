"""The guard tests' shell fixture: a real IPython shell with trainguard loaded, one per test."""

from tests.guard.conftest import Shell, shell  # noqa: F401 - re-exported fixture
