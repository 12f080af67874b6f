"""Consolidation internals; the entry point is :mod:`assistant.memory.consolidate`.

Modules: ``text`` (guards), ``snapshot`` (records + vectors, blocked cosine), ``changes`` (typed
changes), ``dedup``, ``contradictions``, ``episodic``, ``decay_ttl`` (planners), ``llm``
(optional constrained checks), ``apply`` (short transactions, optimistic concurrency),
``runs`` (the ``consolidation_runs`` table), ``undo``.
"""
