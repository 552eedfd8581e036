"""HTTP access for tools that wrap a web service (PubChem, ChemSpider, Materials Project...).

These tools are real clients: they build the service's documented request and parse its
documented response. Offline (as on CI and the development machines) the request fails,
and the caller gets a `ToolInputError` saying plainly that the network is unavailable,
which the tool wrapper turns into ``{"ok": false, "error": ...}``.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlparse

import httpx

from scigate.tools._tool import ToolInputError

DEFAULT_TIMEOUT = float(os.environ.get("SCIGATE_TOOL_HTTP_TIMEOUT", "20"))


class ServiceUnavailable(ToolInputError):
    """The web service a tool needs could not be reached or refused the request."""


def fetch(
    url: str,
    *,
    service: str,
    params: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    method: str = "GET",
    data: Any = None,
    timeout: float | None = None,
    transport: httpx.BaseTransport | None = None,
) -> httpx.Response:
    """Send one request to `service`; raise `ServiceUnavailable` with a plain message on failure."""
    host = urlparse(url).netloc or url
    try:
        with httpx.Client(timeout=timeout or DEFAULT_TIMEOUT, transport=transport) as client:
            response = client.request(method, url, params=params, headers=headers, data=data)
    except httpx.TransportError as exc:
        raise ServiceUnavailable(
            f"network unavailable: could not reach {service} at {host} "
            f"({type(exc).__name__}); this tool needs the {service} web service"
        ) from exc
    if response.status_code == 404:
        raise ToolInputError(f"{service} found no record for this input (HTTP 404)")
    if response.status_code >= 400:
        raise ServiceUnavailable(
            f"{service} answered HTTP {response.status_code}: {response.text[:200].strip()}"
        )
    return response


def fetch_json(url: str, *, service: str, **kwargs: Any) -> Any:
    """`fetch` and decode a JSON body; a non-JSON body is reported, not raised raw."""
    response = fetch(url, service=service, **kwargs)
    try:
        return response.json()
    except ValueError as exc:
        raise ServiceUnavailable(f"{service} returned a body that is not JSON") from exc
