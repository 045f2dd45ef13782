"""The tool catalog: every downstream tool as listed (`records`), fingerprints of the connection config it
was fetched with (`fingerprint`), and `cache.json`, the catalog shared on disk by every gateway process of a
workspace (`cachefile` is its format, `store` its atomic, locked, merging reads and writes)."""
