"""Consolidation: the background job that keeps long-term memory clean, current and small -- one
run (:mod:`.consolidator`) plans with :mod:`.plans`, applies in short audited transactions, undoes.

Modules: ``consolidator`` (the run), ``snapshot`` (records + vectors, blocked cosine), ``changes``
(typed changes), ``llm`` (optional constrained checks), ``apply`` (short transactions, optimistic
concurrency), ``runs`` (the ``consolidation_runs`` table), ``owner``/``recover`` (who runs, roll
back an interrupted run), ``undo``; the planners are in :mod:`.plans`.
"""
