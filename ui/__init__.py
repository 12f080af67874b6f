"""PySide6 desktop app. Talks only to assistant/ services, never to SQL or llama_cpp."""

from ui.qt_compat import protect_singletons as _protect_singletons

_protect_singletons()  # PySide6 6.12 + CPython 3.11 reference-count bug: see ui/qt_compat.py
