"""Client-facing resource URIs: unchanged for a scheme one server owns, `mcp-gateway://server/uri` when shared."""

from __future__ import annotations

from mcp_gateway.service.offerings import Route, matches, scheme_of, uri_map

DOC = "demo://resource/static/document/architecture.md"
TEXT_TEMPLATE = "demo://resource/dynamic/text/{resourceId}"


def test_a_scheme_only_one_server_uses_passes_unchanged_and_routes_any_uri_of_it() -> None:
    uris = uri_map([("everything", [DOC], [TEXT_TEMPLATE]), ("files", ["file:///a"], [])])
    assert uris.client_uri("everything", DOC) == DOC
    assert uris.client_uri("everything", TEXT_TEMPLATE) == TEXT_TEMPLATE
    assert uris.route(DOC) == Route("everything", DOC)
    assert uris.route("demo://resource/dynamic/text/9") == Route("everything", "demo://resource/dynamic/text/9")
    assert uris.route("DEMO://x") == Route("everything", "DEMO://x"), "schemes are compared without case"
    assert uris.route("file:///not/listed") == Route("files", "file:///not/listed")


def test_a_shared_scheme_is_rewritten_to_carry_its_server_and_routes_back_even_from_a_template() -> None:
    uris = uri_map([("everything", [DOC], [TEXT_TEMPLATE]), ("fake", [DOC, "fake://x"], [TEXT_TEMPLATE])])
    assert uris.client_uri("fake", DOC) == f"mcp-gateway://fake/{DOC}"
    assert uris.client_uri("fake", "fake://x") == "fake://x"
    client_template = uris.client_uri("everything", TEXT_TEMPLATE)
    assert client_template == f"mcp-gateway://everything/{TEXT_TEMPLATE}"
    expanded = client_template.replace("{resourceId}", "12")
    assert uris.route(expanded) == Route("everything", "demo://resource/dynamic/text/12")
    assert uris.route(f"mcp-gateway://fake/{DOC}") == Route("fake", DOC)


def test_an_unrewritten_uri_of_a_shared_scheme_routes_only_when_one_server_lists_it_or_one_template_fits() -> None:
    uris = uri_map([("a", ["demo://one"], ["demo://items/{id}"]), ("b", ["demo://two"], [])])
    assert uris.route("demo://one") == Route("a", "demo://one")
    assert uris.route("demo://two") == Route("b", "demo://two")
    assert uris.route("demo://items/5") == Route("a", "demo://items/5")
    assert isinstance(uris.route("demo://three"), str)
    both = uri_map([("a", ["demo://same"], []), ("b", ["demo://same"], ["demo://{x}"])])
    assert isinstance(both.route("demo://same"), str), "listed by both: a template must not decide it"


def test_a_server_name_with_odd_characters_round_trips_and_an_unknown_one_does_not_route() -> None:
    uris = uri_map([("my server/1", ["x://a"], []), ("other", ["x://a"], [])])
    client = uris.client_uri("my server/1", "x://a")
    assert client == "mcp-gateway://my%20server%2F1/x://a"
    assert uris.route(client) == Route("my server/1", "x://a")
    assert isinstance(uris.route("mcp-gateway://nobody/x://a"), str)
    assert isinstance(uri_map([]).route("x://a"), str)


def test_a_gateway_uri_from_a_gateway_behind_this_one_is_always_wrapped() -> None:
    uris = uri_map([("inner", ["mcp-gateway://deeper/x://a"], [])])
    client = uris.client_uri("inner", "mcp-gateway://deeper/x://a")
    assert uris.route(client) == Route("inner", "mcp-gateway://deeper/x://a")


def test_templates_match_their_expansions_and_nothing_else() -> None:
    assert matches("file:///{path}", "file:///a.txt")
    assert not matches("file:///{path}", "file:///dir/a.txt"), "a simple expression is one segment"
    assert matches("file:///{+path}", "file:///dir/a.txt")
    assert matches("api://search{?q,limit}", "api://search?q=x&limit=2")
    assert matches("api://search{?q,limit}", "api://search")
    assert not matches("demo://a/{id}", "demo://b/1")
    assert scheme_of("{+path}") == ""
    assert scheme_of("HTTPS://x") == "https"
