"""The stored sign-in and the serving gateway's use of it: files private and keyed by name and url, tokens renewed
before they expire and learnt by the mask, and a refusal no token answers turned into a sign-in reply."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import httpx2
import pytest
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from mcp_gateway.errors import UnusableFileError
from mcp_gateway.masking import SecretMask
from mcp_gateway.sign_in import SignIn, SignInAuth, SignInStore, is_sign_in_reply

pytestmark = pytest.mark.anyio

URL = "https://mcp.example/mcp"
TOKEN_URL = "https://auth.example/token"


def sign_in(
    *, access: str = "access-token-one-0001", expires_in: int = 3600, refresh: str | None = "refresh-0001"
) -> SignIn:
    tokens = OAuthToken(access_token=access, expires_in=expires_in, refresh_token=refresh)
    return SignIn(
        server="web",
        url=URL,
        tokens=tokens,
        expires_at=time.time() + expires_in,
        client=OAuthClientInformationFull(client_id="client-1", token_endpoint_auth_method="none"),
        token_endpoint=TOKEN_URL,
        resource=URL,
    )


def test_a_sign_in_is_stored_private_and_read_back_only_for_its_url(tmp_path: Path) -> None:
    SignInStore(tmp_path / "oauth", SecretMask().learn).save(sign_in())
    mask = SecretMask()
    store = SignInStore(tmp_path / "oauth", mask.learn)
    path = store.path_of("web")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "oauth").stat().st_mode) == 0o700
    loaded = store.load("web", URL)
    assert loaded is not None
    assert loaded.tokens.access_token == "access-token-one-0001"
    assert mask.mask("access-token-one-0001 refresh-0001") == "*** ***"  # every sign-in read is learnt
    assert store.load("web", "https://elsewhere.example/mcp") is None  # another url: another server's token
    assert store.remove("web")
    assert store.load("web", URL) is None
    assert not store.remove("web")


def test_names_that_read_alike_on_disk_get_their_own_files(tmp_path: Path) -> None:
    store = SignInStore(tmp_path, SecretMask().learn)
    assert store.path_of("a/b") != store.path_of("a_b")


def test_a_link_planted_at_a_sign_in_is_neither_followed_nor_read(tmp_path: Path) -> None:
    store = SignInStore(tmp_path / "oauth", SecretMask().learn)
    store.save(sign_in())
    target = tmp_path / "elsewhere.json"
    target.write_text(store.path_of("web").read_text())
    store.path_of("web").unlink()
    os.symlink(target, store.path_of("web"))
    with pytest.raises(UnusableFileError):
        store.load("web", URL)
    store.save(sign_in(access="access-token-two-0002"))  # replaces the link itself
    assert not store.path_of("web").is_symlink()
    assert "access-token-one-0001" in target.read_text()


def test_an_unreadable_record_reads_as_signed_out(tmp_path: Path) -> None:
    store = SignInStore(tmp_path / "oauth", SecretMask().learn)
    store.save(sign_in())
    store.path_of("web").write_text(json.dumps({"version": 1, "server": "web"}))
    assert store.load("web", URL) is None


def serving(
    tmp_path: Path, answer: httpx2.MockTransport
) -> tuple[httpx2.AsyncClient, SignInAuth, SecretMask, SignInStore]:
    mask = SecretMask()
    store = SignInStore(tmp_path / "oauth", mask.learn)
    auth = SignInAuth("web", URL, store, token_transport=answer)
    return httpx2.AsyncClient(transport=answer, auth=auth), auth, mask, store


async def test_a_token_about_to_expire_is_renewed_first_saved_and_masked(tmp_path: Path) -> None:
    seen: list[str] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        if str(request.url) == TOKEN_URL:
            form = dict(item.split("=", 1) for item in request.content.decode().split("&"))
            assert (form["grant_type"], form["refresh_token"]) == ("refresh_token", "refresh-0001")
            return httpx2.Response(200, json={"access_token": "access-token-new-0003", "expires_in": 3600})
        seen.append(request.headers.get("Authorization", ""))
        return httpx2.Response(200, json={"jsonrpc": "2.0", "id": 1, "result": {}})

    client, auth, mask, store = serving(tmp_path, httpx2.MockTransport(answer))
    # 1 s left of a 30 s lifetime: within its margin (a tenth of its lifetime, or a minute)
    store.save(sign_in(expires_in=30).model_copy(update={"expires_at": time.time() + 1}))
    async with client:
        response = await client.post(URL, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert response.status_code == 200
    assert seen == ["Bearer access-token-new-0003"]
    renewed = store.load("web", URL)
    assert renewed is not None
    assert renewed.tokens.access_token == "access-token-new-0003"
    assert renewed.tokens.refresh_token == "refresh-0001"  # not rotated: kept
    assert mask.mask("access-token-new-0003 refresh-0001") == "*** ***"
    assert not auth.needed


async def test_a_refusal_without_a_usable_token_becomes_a_sign_in_reply_for_that_request(tmp_path: Path) -> None:
    def answer(request: httpx2.Request) -> httpx2.Response:
        if str(request.url) == TOKEN_URL:
            return httpx2.Response(400, json={"error": "invalid_grant"})
        # streamed, as a network transport's body is: not read before the auth flow sees the response
        challenge = {"WWW-Authenticate": 'Bearer error="invalid_token"'}
        return httpx2.Response(401, headers=challenge, stream=httpx2.ByteStream(b"no"))

    client, auth, _, store = serving(tmp_path, httpx2.MockTransport(answer))
    store.save(sign_in(expires_in=3600))  # live, yet refused (revoked): renewal is tried once, and fails
    async with client:
        response = await client.post(URL, json={"jsonrpc": "2.0", "id": 7, "method": "tools/call"})
        notification = await client.post(URL, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert auth.needed
    assert response.status_code == 401
    reply = response.json()
    assert reply["id"] == 7
    assert is_sign_in_reply(reply["error"]["data"])
    assert notification.content == b""
    assert not is_sign_in_reply({"mcp-gateway/sign-in": "a server's guess"})
