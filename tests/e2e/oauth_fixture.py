"""The OAuth-protected MCP fixture (`fixtures/oauth_mcp_server.py`) on free local ports, and a person signing in.

`signing_in` runs the real `mcp-gateway login --no-browser` and plays the browser: it reads the URL the command
prints, follows it with an HTTP client as a browser would (the fixture's authorization server approves at once
and redirects to the command's loopback listener), and returns what the command printed and its exit status.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import anyio
import httpx2
from anyio.streams.text import TextReceiveStream
from e2e_gateway import CLI_SECONDS, client_environment, gateway_command
from gateway_testing import ROOT
from remote_fixture import free_port, wait_listening

OAUTH_FIXTURE = ROOT / "fixtures" / "oauth_mcp_server.py"
BROWSER_SECONDS = 10.0


@dataclass(frozen=True)
class OAuthFixture:
    auth_port: int
    resource_port: int

    @property
    def url(self) -> str:
        """The MCP server's url, for config.json."""
        return f"http://127.0.0.1:{self.resource_port}/mcp"

    @property
    def sse_url(self) -> str:
        """The same server's legacy SSE url."""
        return f"http://127.0.0.1:{self.resource_port}/sse"

    def stats(self) -> dict[str, int]:
        """How many registrations, codes, refreshes and revocations the authorization server has seen."""
        response = httpx2.get(f"http://127.0.0.1:{self.auth_port}/fixture/stats", timeout=BROWSER_SECONDS)
        return dict(response.json())


@contextlib.contextmanager
def running_oauth_fixture(
    token_seconds: float = 2.0, refresh_delay: float = 0.0, *, revocation: bool = True
) -> Generator[OAuthFixture]:
    """The authorization server and the resource server, for as long as the block runs (`refresh_delay`: seconds
    between a refresh token being spent and the new tokens being answered; `revocation`: whether it offers
    token revocation)."""
    fixture = OAuthFixture(free_port(), free_port())
    process = subprocess.Popen(
        [
            sys.executable,
            str(OAUTH_FIXTURE),
            "--auth-port",
            str(fixture.auth_port),
            "--resource-port",
            str(fixture.resource_port),
            "--token-seconds",
            str(token_seconds),
            "--refresh-delay",
            str(refresh_delay),
            *([] if revocation else ["--no-revocation"]),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_listening(fixture.auth_port, process)
        wait_listening(fixture.resource_port, process)
        yield fixture
    finally:
        process.kill()
        process.wait()


@dataclass(frozen=True)
class Signed:
    returncode: int
    stdout: str
    stderr: str
    browser_saw: str
    """The page the loopback listener showed the browser ("" when no URL was printed)."""


async def signing_in(home: Path, server: str, *, decision: str | None = None, first: Sequence[str] = ()) -> Signed:
    """`mcp-gateway login SERVER --no-browser`, with a browser following the printed URL (`decision`: the
    fixture's `deny` or `wrong-state`, added to the URL as a person's choice on the consent page would be).
    `first`: what reaches the loopback listener before that: `wrong-state` (the consent page answered for
    another sign-in), `forged-refusal` (another local program's `error=access_denied` without the state)."""
    seen = ""
    printed: list[str] = []
    with anyio.fail_after(CLI_SECONDS):
        async with await anyio.open_process(
            [*gateway_command(home), "login", server, "--no-browser"], env=client_environment()
        ) as process:
            assert process.stderr is not None
            assert process.stdout is not None
            async for chunk in TextReceiveStream(process.stderr):
                printed.append(chunk)
                lines = "".join(printed).splitlines()
                url = next((line for line in lines if line.startswith("http")), None)
                if url is not None:
                    async with httpx2.AsyncClient(follow_redirects=True, timeout=BROWSER_SECONDS) as browser:
                        for early in first:
                            seen += (await browser.get(_early_answer(url, early))).text
                        if decision is not None:
                            url = f"{url}&{urlencode({'fixture': decision})}"
                        seen += (await browser.get(url)).text
                    break
            printed.extend([chunk async for chunk in TextReceiveStream(process.stderr)])
            out = "".join([chunk async for chunk in TextReceiveStream(process.stdout)])
            returncode = await process.wait()
    return Signed(returncode, out, "".join(printed), seen)


def _early_answer(url: str, kind: str) -> str:
    """Where a browser (or another program) is sent before the real answer: see `signing_in`'s `first`."""
    if kind == "forged-refusal":
        redirect = parse_qs(urlsplit(url).query)["redirect_uri"][0]
        return f"{redirect}?{urlencode({'error': 'access_denied', 'error_description': 'forged'})}"
    return f"{url}&{urlencode({'fixture': kind})}"
