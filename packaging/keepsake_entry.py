"""Entry point of the frozen bundle: the same ``keepsake`` command as the venv's console script.

``keepsake`` with no command opens the desktop app; ``keepsake doctor``, ``chat``, ``memory`` ...
work as in a source checkout. ``freeze_support`` first: a process the app spawns with
``multiprocessing`` (the consolidation planner, ``assistant/memory/consolidation/plan_apart.py``)
starts this same executable, which must run that child's code instead of the app.
"""

import multiprocessing
import sys

from assistant.cli import main

if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(main())
