"""Reading what people say (pure functions, no I/O, no store): sentences and clauses, cues, the
statement rules and their phrasing in the third person, profile slots, dates grounded against when
something was said, claims (subject and predicate of a fact), fuzzy text comparison, and finding
a text again after normalisation.

Capture, retrieval, consolidation and forgetting all read text the same way through this layer;
it imports nothing of theirs (``lint-imports``: "Memory layers").
"""
