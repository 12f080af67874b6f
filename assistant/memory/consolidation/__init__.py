"""Consolidation: the background job that keeps long-term memory clean, current and small -- one
run (:mod:`.consolidator`) plans with :mod:`.plans`, applies in short audited transactions, undoes.

Modules: ``consolidator`` (the run), ``hotpath`` (the retirements a captured message states, at
once), ``llm`` (optional constrained checks); the planners are in :mod:`.plans`. What a run
reads and writes in the database (snapshot, typed changes, apply, runs, undo, recovery) is the
store's: :mod:`assistant.memory.store.tidying`.
"""
