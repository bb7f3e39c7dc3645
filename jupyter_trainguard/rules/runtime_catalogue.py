"""Lists the runtime rules of `%%guarded_train` (DATA*, RNG*, MEM*, GUARD001) in the rule catalogue.

They are defined next to the code that evaluates them, in `jupyter_trainguard.runtime.rules`.
"""

import jupyter_trainguard.runtime.rules  # noqa: F401
