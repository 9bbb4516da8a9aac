"""Where a warning raised deep inside pjtorch should point: the user's line, as PyTorch's do."""
from __future__ import annotations

import os
import sys

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def user_stacklevel() -> int:
    """The `stacklevel` that makes `warnings.warn`, called by the caller of this function, report the first frame
    outside pjtorch (whatever depth of engine and hook code lies between)."""
    frame, level = sys._getframe(2), 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level
