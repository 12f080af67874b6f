"""PyInstaller runtime hook: programs Keepsake starts must not inherit the bundle's library path.

The bootloader sets LD_LIBRARY_PATH to ``_internal/`` (keeping the caller's value in
LD_LIBRARY_PATH_ORIG). The dynamic loader read it at process start, so the bundle keeps using its
own libraries; removing it from ``os.environ`` only affects children: ``$EDITOR`` from
``keepsake note edit``, the file manager behind "Open data folder", which would otherwise load
the bundle's (older) libstdc++/glib and may crash.
"""

import os

_orig = os.environ.pop("LD_LIBRARY_PATH_ORIG", None)
if _orig:
    os.environ["LD_LIBRARY_PATH"] = _orig
else:
    os.environ.pop("LD_LIBRARY_PATH", None)
