"""Long-term memory: the encrypted store, capture, retrieval, consolidation and forgetting.

Subpackages (each ``__init__`` says its job), in layers (each imports only the layers below it;
``lint-imports`` enforces it, contract "Memory layers" in pyproject.toml):

1. :mod:`.capture` (what the person says -> memories, imports) | :mod:`.retrieval` (what a turn
   gets to see) | :mod:`.forget` (what "forget X" means) -- independent of each other;
2. :mod:`.consolidation` (the background clean-up; capture runs its hot-path retirement);
3. :mod:`.store` (the ``MemoryStore``: one module per table, the SQLite file under it, and every
   delete: :mod:`.store.forgetting`; what a tidy-up run reads and writes: :mod:`.store.tidying`)
   -- where SQL lives;
4. :mod:`.language` (reading text: rules, clauses, dates, claims; pure);
5. shared vocabulary: :mod:`.entries`, :mod:`.records` (typed records), :mod:`.errors`,
   :mod:`.times`.
"""
