"""The daemon's reading of a front's hello: a session whose working directory is not absolute is refused,
since a server without its own `cwd` runs there and must never run relative to the daemon's directory."""

from __future__ import annotations

import anyio
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream

from mcp_gateway.front.hello import Hello
from mcp_gateway.server.doors import _hello  # pyright: ignore[reportPrivateUsage]

pytestmark = pytest.mark.anyio


async def read(hello: Hello) -> Hello | str:
    send, receive = anyio.create_memory_object_stream[bytes](1)
    async with send, receive:
        await send.send(hello.encode())
        return await _hello(BufferedByteReceiveStream(receive))


async def test_a_hello_from_an_absolute_directory_is_taken_with_its_environment() -> None:
    taken = await read(Hello.of_this_process("/work/project", {"MARK": "mine"}))

    assert isinstance(taken, Hello)
    assert (taken.cwd, taken.environ) == ("/work/project", {"MARK": "mine"})


async def test_a_hello_from_a_relative_directory_is_refused_with_why() -> None:
    refused = await read(Hello.of_this_process("project", {}))

    assert refused == "the session's working directory 'project' is not an absolute path"
