"""The UI's bridge to the assistant's services: the backend, worker threads, error sentences (no widgets)."""
