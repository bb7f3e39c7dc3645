"""Shared training components used by every notebook in this repository.

Standard notebooks call only `experiment_runner.run_standard_experiment`; experimental notebooks may write
their own loop but still use `device_setup.setup` and `artifacts.save_report`.
"""
