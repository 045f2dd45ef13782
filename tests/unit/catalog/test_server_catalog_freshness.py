from mcp_gateway.catalog import ServerCatalog

DAY_S = 86_400.0
NOW = 1_800_000_000.0


def _fetched(days_ago: float, fingerprint: str = "fp") -> ServerCatalog:
    return ServerCatalog(server="s", fingerprint=fingerprint, fetched_at=NOW - days_ago * DAY_S, tools=())


def test_catalog_is_fresh_for_same_fingerprint_within_ttl() -> None:
    assert _fetched(days_ago=6.9).is_fresh("fp", ttl_days=7, now=NOW)


def test_catalog_is_stale_when_fingerprint_differs() -> None:
    assert not _fetched(days_ago=0).is_fresh("other", ttl_days=7, now=NOW)
    assert not _fetched(days_ago=0).is_fresh("other", ttl_days=0, now=NOW)


def test_catalog_is_stale_once_ttl_has_passed() -> None:
    assert not _fetched(days_ago=7).is_fresh("fp", ttl_days=7, now=NOW)
    assert not _fetched(days_ago=0.6).is_fresh("fp", ttl_days=0.5, now=NOW)


def test_catalog_with_ttl_zero_never_expires() -> None:
    assert _fetched(days_ago=3650).is_fresh("fp", ttl_days=0, now=NOW)


def test_catalog_fetched_in_the_future_is_stale() -> None:
    assert not _fetched(days_ago=-1).is_fresh("fp", ttl_days=7, now=NOW)
