"""Entry point of the frozen bundle: the same ``keepsake`` command as the venv's console script.

``keepsake`` with no command opens the desktop app; ``keepsake doctor``, ``chat``, ``memory`` ...
work as in a source checkout.
"""

import sys

from assistant.cli import main

if __name__ == "__main__":
    sys.exit(main())
