"""The legacy SSE transport's own rules: the message endpoint must stay on the stream's origin."""

from __future__ import annotations

import pytest

from mcp_gateway.downstream.sse import SseProtocolError, message_endpoint


def test_a_relative_endpoint_is_resolved_against_the_stream_url() -> None:
    assert message_endpoint("http://127.0.0.1:9000/sse", "/messages/?session_id=abc") == (
        "http://127.0.0.1:9000/messages/?session_id=abc"
    )


@pytest.mark.parametrize("endpoint", ["https://127.0.0.1:9000/messages/", "http://evil.example/messages/"])
def test_an_endpoint_on_another_origin_is_refused(endpoint: str) -> None:
    with pytest.raises(SseProtocolError, match="not on the origin"):
        message_endpoint("http://127.0.0.1:9000/sse", endpoint)
