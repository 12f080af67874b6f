"""Consolidation planners: pure functions from a store snapshot to typed changes -- duplicates,
contradictions (temporal rules, claims), episodic -> semantic, decay and TTL. Nothing here writes."""
