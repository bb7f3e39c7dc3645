"""Lists the checkpoint-artifact rules (CKPT101-CKPT108) in the rule catalogue.

They are defined next to the code that evaluates them, in `jupyter_trainguard.report.checkpoint_audit`.
"""

import jupyter_trainguard.report.checkpoint_audit  # noqa: F401
