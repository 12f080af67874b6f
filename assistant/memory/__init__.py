"""Long-term memory: the encrypted store, capture, retrieval, consolidation and forgetting.

Subpackages (each ``__init__`` says its job): :mod:`.store` (the ``MemoryStore``, one module per
table, the SQLite file under it), :mod:`.capture` (what the person says -> memories, imports),
:mod:`.retrieval` (what a turn gets to see), :mod:`.consolidation` (the background clean-up),
:mod:`.forget` (every delete). Shared vocabulary: :mod:`.records` (typed records) and
:mod:`.errors`.
"""
