"""Sessions of one daemon stay separate: real fronts, one real daemon, the real fake server behind it.

Each session's requests in flight are bounded (`maxCallsPerSession`), so one busy session cannot hold back
another; a call's progress and a subscription's updates reach the session that made them, and no other; a
session that leaves takes its subscriptions with it. Ordering, not timing, decides each: what one session
hears is compared with what it must have heard by the time a later answer arrives on the same stream.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from e2e_gateway import SESSION_SECONDS, downstream_pid, execute, gateway_command, read_lines, text_of, wait_for
from mcp import Client, StdioServerParameters
from mcp.client.session import MessageHandlerFnT
from workspaces import daemon_cleanup, daemon_settings, fake_server, shared_environment, write_workspace

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

MAX_CALLS = 2
SLOW_REQUEST_MS = 8000
"""The slow server's request timeout: how long the busy session's stuck calls hold its slots, and so how long
the other session's call has to be answered in for the test to pass (a generous bound on a loaded machine)."""
SHARED_DOCUMENT = "demo://resource/static/document/architecture.md"
BLOB = "fake://blob/bytes"


@asynccontextmanager
async def front(
    home: Path, runtime_dir: Path, message_handler: MessageHandlerFnT | None = None
) -> AsyncGenerator[Client]:
    command, *args = gateway_command(home)
    params = StdioServerParameters(command=command, args=args, env=shared_environment(runtime_dir))
    async with Client(params, mode="legacy", cache=None, message_handler=message_handler) as client:
        yield client


def workspace(home: Path, tmp_path: Path, **settings: object) -> Path:
    servers = {
        "fake": fake_server(surface="serve", subscription_log=str(tmp_path / "subscriptions.log")),
        "slow": {**fake_server(name="slow"), "requestTimeoutMs": SLOW_REQUEST_MS},
    }
    write_workspace(home, servers, daemon_settings(**settings))
    return home


async def test_a_busy_session_waits_for_its_own_slots_and_never_holds_back_another(
    tmp_path: Path, runtime_dir: Path
) -> None:
    home = workspace(tmp_path / "home", tmp_path, maxCallsPerSession=MAX_CALLS)
    ended: list[str] = []
    async with daemon_cleanup(runtime_dir), front(home, runtime_dir) as busy, front(home, runtime_dir) as other:
        await downstream_pid(busy, "slow")
        await downstream_pid(other, "fake")
        with anyio.fail_after(SESSION_SECONDS):
            async with anyio.create_task_group() as tg:
                running = [anyio.Event() for _ in range(MAX_CALLS)]

                async def stuck(index: int) -> None:
                    # Never answered in time: each holds one of the busy session's slots until its request timeout.
                    async def first_step(progress: float, total: float | None, message: str | None) -> None:
                        running[index].set()

                    result = await busy.call_tool(
                        "execute_tool",
                        {"tool": "slow.progress", "arguments": {"steps": 600, "delay": 1}},
                        progress_callback=first_step,
                    )
                    assert result.is_error
                    ended.append(f"stuck {index}")

                async def over_the_bound() -> None:
                    result = await execute(busy, "fake.echo", {"message": "waited"})
                    assert text_of(result) == "waited"
                    ended.append("busy echo")

                for index in range(MAX_CALLS):
                    tg.start_soon(stuck, index)
                for event in running:
                    await event.wait()
                tg.start_soon(over_the_bound)
                result = await execute(other, "fake.echo", {"message": "not held back"})
                assert text_of(result) == "not held back"
                ended.append("other echo")
    assert ended.index("other echo") < min(ended.index(f"stuck {index}") for index in range(MAX_CALLS))
    assert ended.index("busy echo") > min(ended.index(f"stuck {index}") for index in range(MAX_CALLS)), (
        "the busy session's call over its bound ran before one of its slots was free"
    )


async def test_each_session_hears_only_its_own_progress(tmp_path: Path, runtime_dir: Path) -> None:
    home = workspace(tmp_path / "home", tmp_path)
    heard: dict[int, list[tuple[float, float | None]]] = {5: [], 7: []}
    on_the_wire: dict[int, list[float | None]] = {5: [], 7: []}
    """Every progress notification each session's stream carried (the SDK shows them all to the handler)."""

    def wire(steps: int) -> MessageHandlerFnT:
        async def on_message(message: object) -> None:
            if isinstance(message, types.ProgressNotification):
                on_the_wire[steps].append(message.params.total)

        return on_message

    async with (
        daemon_cleanup(runtime_dir),
        front(home, runtime_dir, wire(5)) as five,
        front(home, runtime_dir, wire(7)) as seven,
    ):
        await downstream_pid(five, "fake")

        async def call(client: Client, steps: int) -> None:
            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                heard[steps].append((progress, total))

            result = await client.call_tool(
                "execute_tool",
                {"tool": "fake.progress", "arguments": {"steps": steps, "delay": 0.05}},
                progress_callback=on_progress,
            )
            assert text_of(result) == f"done {steps}"

        with anyio.fail_after(SESSION_SECONDS):
            async with anyio.create_task_group() as tg:
                tg.start_soon(call, five, 5)
                tg.start_soon(call, seven, 7)
    assert heard[5] == [(float(step), 5.0) for step in range(1, 6)]
    assert heard[7] == [(float(step), 7.0) for step in range(1, 8)]
    assert on_the_wire == {5: [5.0] * 5, 7: [7.0] * 7}


async def test_a_resource_update_reaches_only_the_session_that_subscribed(tmp_path: Path, runtime_dir: Path) -> None:
    home = workspace(tmp_path / "home", tmp_path)
    heard: dict[str, list[str]] = {"document": [], "blob": []}
    again = {name: anyio.Event() for name in heard}

    def listener(name: str) -> MessageHandlerFnT:
        async def on_message(message: object) -> None:
            if isinstance(message, types.ResourceUpdatedNotification):
                heard[name].append(message.params.uri)
                if len(heard[name]) == 2:
                    again[name].set()

        return on_message

    async with (
        daemon_cleanup(runtime_dir),
        front(home, runtime_dir, listener("document")) as document,
        front(home, runtime_dir, listener("blob")) as blob,
    ):
        with anyio.fail_after(SESSION_SECONDS):
            first_pid = await downstream_pid(document, "fake")  # a call answered: its crash is no failed start
            # The fake server says at once that a resource changed as it is subscribed to, on every process.
            await document.subscribe_resource(SHARED_DOCUMENT)  # pyright: ignore[reportDeprecated]
            await blob.subscribe_resource(BLOB)  # pyright: ignore[reportDeprecated]
            crashed = await document.call_tool("execute_tool", {"tool": "fake.crash", "arguments": {}})
            # Both subscriptions are made again on the next process, which tells of both resources at once.
            await again["document"].wait()
            await again["blob"].wait()
            assert await downstream_pid(blob, "fake") != first_pid
    assert crashed.is_error
    assert heard == {"document": [SHARED_DOCUMENT] * 2, "blob": [BLOB] * 2}


async def test_a_session_that_leaves_lets_go_of_its_subscriptions(tmp_path: Path, runtime_dir: Path) -> None:
    home = workspace(tmp_path / "home", tmp_path)
    log = tmp_path / "subscriptions.log"
    async with daemon_cleanup(runtime_dir), front(home, runtime_dir) as staying:
        await downstream_pid(staying, "fake")
        with anyio.fail_after(SESSION_SECONDS):
            async with front(home, runtime_dir) as leaving:
                await leaving.subscribe_resource(SHARED_DOCUMENT)  # pyright: ignore[reportDeprecated]
            # It never unsubscribed: its leaving does, on the server, while the daemon serves on.
            await wait_for(lambda: f"resources/unsubscribe {SHARED_DOCUMENT}" in read_lines(log), SESSION_SECONDS)
            assert text_of(await execute(staying, "fake.echo", {"message": "still here"})) == "still here"
    assert read_lines(log) == [f"resources/subscribe {SHARED_DOCUMENT}", f"resources/unsubscribe {SHARED_DOCUMENT}"]


async def test_a_subscription_is_held_on_the_process_of_the_session_that_made_it(
    tmp_path: Path, runtime_dir: Path
) -> None:
    """Two sessions whose environments resolve the server differently (each names its own log) are served by two
    processes; each session's subscription is made on its own process, and each hears only its own process."""
    home = tmp_path / "home"
    logged = {
        **fake_server(surface="serve"),
        "env": {"FAKE_MCP_SURFACE": "serve", "FAKE_MCP_SUBSCRIPTION_LOG": "${LOG}"},
    }
    write_workspace(home, {"fake": logged}, daemon_settings())
    logs = {name: tmp_path / f"{name}.subscriptions" for name in ("first", "second")}
    heard: dict[str, list[str]] = {name: [] for name in logs}
    told = {name: anyio.Event() for name in logs}

    def listener(name: str) -> MessageHandlerFnT:
        async def on_message(message: object) -> None:
            if isinstance(message, types.ResourceUpdatedNotification):
                heard[name].append(message.params.uri)
                told[name].set()

        return on_message

    def params(name: str) -> StdioServerParameters:
        command, *args = gateway_command(home)
        env = shared_environment(runtime_dir) | {"LOG": str(logs[name])}
        return StdioServerParameters(command=command, args=args, env=env)

    async with (
        daemon_cleanup(runtime_dir),
        Client(params("first"), mode="legacy", cache=None, message_handler=listener("first")) as first,
        Client(params("second"), mode="legacy", cache=None, message_handler=listener("second")) as second,
    ):
        with anyio.fail_after(SESSION_SECONDS):
            assert await downstream_pid(first, "fake") != await downstream_pid(second, "fake")
            await first.subscribe_resource(SHARED_DOCUMENT)  # pyright: ignore[reportDeprecated]
            await told["first"].wait()
            await second.subscribe_resource(SHARED_DOCUMENT)  # pyright: ignore[reportDeprecated]
            await told["second"].wait()
            assert text_of(await execute(first, "fake.echo", {"message": "after"})) == "after"
    assert read_lines(logs["first"])[:1] == [f"resources/subscribe {SHARED_DOCUMENT}"]
    assert read_lines(logs["second"])[:1] == [f"resources/subscribe {SHARED_DOCUMENT}"], "not on the first's process"
    assert heard == {"first": [SHARED_DOCUMENT], "second": [SHARED_DOCUMENT]}, "each heard its own process only"
