"""Retrieval: find the memories relevant to a turn (hybrid BM25 + vectors, gates, scoring), put
them into the prompt (injection, logged) and answer from them when code is sure (memory answers)."""
