"""PySide6 desktop app. Talks only to assistant/ services, never to SQL or llama_cpp."""
