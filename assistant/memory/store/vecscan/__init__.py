"""The in-memory copy of the vector index that a search scans (numpy), kept in step with the
encrypted database: reading the sqlite-vec tables in bulk (:mod:`.read`), the per-search mask of
kind/status/validity (:mod:`.filter`), and the cache that holds them per store (:mod:`.cache`).
Storage reads, so they live with the store (the only place that holds SQL); retrieval uses them."""
