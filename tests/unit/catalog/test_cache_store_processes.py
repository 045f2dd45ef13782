import json
import multiprocessing
from multiprocessing.synchronize import Event
from pathlib import Path

from mcp_gateway.catalog import CacheStore, ServerCatalog, ToolRecord

WORKERS = 4
SERVERS_PER_WORKER = 20
START_TIMEOUT_S = 30.0
JOIN_TIMEOUT_S = 60.0


def _save_servers(cache_path: str, lock_path: str, worker: int, start: Event) -> None:
    store = CacheStore(Path(cache_path), Path(lock_path))
    start.wait(START_TIMEOUT_S)
    for index in range(SERVERS_PER_WORKER):
        server = f"worker{worker}.server{index}"
        tools = tuple(
            ToolRecord.from_wire({"name": f"tool_{n}", "description": f"{server} tool {n} " * 10}) for n in range(5)
        )
        store.save_server(
            ServerCatalog(server=server, fingerprint=f"fp-{server}", fetched_at=float(index), tools=tools)
        )


def test_concurrent_processes_saving_different_servers_lose_no_entry(tmp_path: Path) -> None:
    cache_path, lock_path = tmp_path / "cache.json", tmp_path / "cache.json.lock"
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    workers = [
        context.Process(target=_save_servers, args=(str(cache_path), str(lock_path), worker, start))
        for worker in range(WORKERS)
    ]
    for process in workers:
        process.start()
    try:
        start.set()
        for process in workers:
            process.join(JOIN_TIMEOUT_S)
        assert [process.exitcode for process in workers] == [0] * WORKERS
    finally:
        for process in workers:
            if process.is_alive():
                process.kill()
                process.join(JOIN_TIMEOUT_S)

    document = json.loads(cache_path.read_bytes())
    expected = {f"worker{w}.server{i}" for w in range(WORKERS) for i in range(SERVERS_PER_WORKER)}
    assert document["servers"].keys() == expected
    store = CacheStore(cache_path, lock_path)
    view = store.load()
    assert view.servers.keys() == expected
    assert all(len(catalog.tools) == 5 for catalog in view.servers.values())
    # The digest is written under the same lock as the file it was derived from: the last one is the file's.
    digest = store.load_digest()
    assert view.signature is not None
    assert digest.cache == (view.signature.mtime_ns, view.signature.size, view.signature.inode)
    assert digest.servers.keys() == expected
    assert sorted(path.name for path in tmp_path.iterdir()) == ["cache-digest.json", "cache.json", "cache.json.lock"]
