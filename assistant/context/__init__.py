"""Short-term memory: budgets, assembler, compaction, offload."""
