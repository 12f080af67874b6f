"""The encrypted SQLite file under the store: opening (SQLCipher, key, extensions, one connection
per thread), schema migrations, damage detection and the markers, error messages, salvage."""
