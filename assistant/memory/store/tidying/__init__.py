"""The store's side of consolidation (tidy-up): everything that reads or writes the database for a
run, so that :mod:`assistant.memory.consolidation` plans without SQL.

``snapshot`` (records and vectors read for planning, blocked cosine; the hot path's small
neighbourhood), ``changes`` (the typed changes a plan returns), ``apply`` (each change in a short
audited transaction with optimistic concurrency), ``runs`` (the ``consolidation_runs`` table),
``owner``/``recover`` (who runs; roll back an interrupted run), ``undo``.
"""
