"""Long-term memory: records, store, retrieval, scoring, temporal logic, capture, consolidation."""
