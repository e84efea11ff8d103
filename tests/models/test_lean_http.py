"""The provider's HTTP client (``models/_lean_http.py``): requests go to the client's
transport directly, unless a proxy in the environment or credentials in the base URL
need the client's own handling."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from model_helpers import user

from ragjudge.models import GenerateConfig, OpenAIProvider
from ragjudge.models._lean_http import lean_client
from ragjudge.testing.server import OpenAITestServer
from served import running

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    yield from running(OpenAITestServer())


@pytest.fixture
def client_sends(monkeypatch: pytest.MonkeyPatch) -> list[httpx2.Request]:
    """The requests that went through ``httpx2.AsyncClient.send``."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    sent: list[httpx2.Request] = []
    real = httpx2.AsyncClient.send

    async def counted(self: httpx2.AsyncClient, request: httpx2.Request, **kwargs: Any) -> Any:
        sent.append(request)
        return await real(self, request, **kwargs)

    monkeypatch.setattr(httpx2.AsyncClient, "send", counted)
    return sent


def _client(base_url: str) -> Any:
    return lean_client(
        base_url,
        headers={"Authorization": "Bearer key-1", "Content-Type": "application/json"},
        timeout=httpx2.Timeout(5.0),
        limits=httpx2.Limits(max_connections=4),
        verify=False,
    )


async def test_without_a_proxy_a_request_goes_to_the_transport_with_the_clients_settings(
    server: OpenAITestServer, client_sends: list[httpx2.Request]
) -> None:
    client = _client(server.base_url)
    request = client.build_request("POST", server.base_url + "/chat/completions", json={"a": 1})
    response = await client.send(request)
    body = await response.aread()
    await response.aclose()
    await client.aclose()

    assert client_sends == [] and client.is_closed
    assert response.status_code == 400 and b"messages" in body  # the server read the body
    assert response.request is request
    assert request.headers["authorization"] == "Bearer key-1"
    assert request.extensions["timeout"]["read"] == 5.0


async def test_a_proxy_in_the_environment_leaves_routing_to_the_client(
    server: OpenAITestServer, client_sends: list[httpx2.Request], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.invalid:3128")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")  # this server is reached directly
    provider = OpenAIProvider("test-model", base_url=server.base_url)

    reply = await provider.complete(user("hi"), GenerateConfig())
    await provider.aclose()

    assert reply.text and len(client_sends) == 1


async def test_credentials_in_the_base_url_leave_the_request_to_the_client(
    server: OpenAITestServer, client_sends: list[httpx2.Request]
) -> None:
    base_url = server.base_url.replace("http://", "http://user:pw@")
    provider = OpenAIProvider("test-model", base_url=base_url)

    await provider.complete(user("hi"), GenerateConfig())
    await provider.aclose()

    [sent] = client_sends
    assert sent.headers["authorization"] == "Basic " + base64.b64encode(b"user:pw").decode()


async def test_the_provider_hands_its_requests_to_the_transport(
    server: OpenAITestServer, client_sends: list[httpx2.Request]
) -> None:
    provider = OpenAIProvider("test-model", base_url=server.base_url)

    replies = [await provider.complete(user(f"q{i}"), GenerateConfig()) for i in range(3)]
    await provider.embed(["a text"])
    await provider.aclose()

    assert all(r.text for r in replies) and client_sends == []
    assert len(server.requests_log) == 4
