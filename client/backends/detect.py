"""Which API a server speaks, and which local servers are running.

Ollama answers GET /api/version ({"version": ...}) and GET / ("Ollama is running");
OpenAI-compatible servers (vLLM, llama.cpp, LM Studio) answer GET /v1/models.
Ollama also serves /v1, so the Ollama probes win when both answer. A kind known by an
endpoint of its own (a router's /list_workers: client/backends/kinds/registry.py) wins
over both, since a router forwards /api/version and /v1/models to a worker. A llama.cpp server
opens its port before its model is loaded and answers 503 "Loading model" meanwhile:
that is an OpenAI-compatible server still loading (client/backends/loading.py waits).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx

from client.backends.decoders import error_text, is_model_loading
from client.backends.errors import BackendUnreachable, ProtocolError
from client.backends.http_json import root_url
from client.backends.kinds import registry
from client.backends.reasons import NO_ANSWER_IN_TIME, reason_of

Api = Literal["ollama", "openai"]
USUAL_PORTS = (11434, 8000, 8080, 1234)  # Ollama, vLLM, llama.cpp, LM Studio
DETECT_TIMEOUT_S = 5.0
_BAD_ANSWER = (OSError, ValueError, IndexError, EOFError, asyncio.LimitOverrunError)


@dataclass(frozen=True, slots=True)
class DiscoveredServer:
    url: str
    api: Api
    models: list[str] = field(default_factory=list)
    loading: bool = False  # it answered 503 "Loading model": up, its model not yet
    name: str = ""  # what a kind known by its own endpoint calls it ("vLLM router · 2 workers")


@dataclass(slots=True)
class _Probe:
    api: Api | None = None
    models: list[str] = field(default_factory=list)
    refused: bool = False
    detail: str = ""
    name: str = ""


async def detect(url: str, client: httpx.AsyncClient | None = None) -> Api:
    """The API of the server at url ("ollama" or "openai"), or a typed error saying why not."""
    return (await detect_server(url, client)).api


async def detect_server(url: str, client: httpx.AsyncClient | None = None) -> DiscoveredServer:
    """The server at url: its API, models and (for a router) its name; or a typed error."""
    root = root_url(url, ("/v1", "/api"))
    own = client is None
    client = client or httpx.AsyncClient(timeout=DETECT_TIMEOUT_S)
    try:
        probe = await _probe(client, root)
    finally:
        if own:
            await client.aclose()
    if probe.api is not None:
        return DiscoveredServer(root, probe.api, probe.models, name=probe.name)
    if probe.refused:
        raise BackendUnreachable(root, probe.detail)
    raise ProtocolError(
        f"the server at {root} answered, but neither like Ollama (/api/version) "
        "nor like an OpenAI-compatible server (/v1/models)"
    )


async def discover_local_servers(
    ports: tuple[int, ...] = USUAL_PORTS, host: str = "127.0.0.1", budget_s: float = 0.3
) -> list[DiscoveredServer]:
    """The servers answering on the usual local ports, probed all at once.

    Returns within budget_s: a port still silent by then is left out. Uses bare
    asyncio connections rather than httpx, whose first client in a process takes
    longer to set up than the whole budget.
    """
    tasks = [asyncio.create_task(_probe_port(host, port)) for port in ports]
    await asyncio.wait(tasks, timeout=budget_s)
    for task in tasks:
        task.cancel()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    return [r for r in results if isinstance(r, DiscoveredServer)]


async def _probe_port(host: str, port: int) -> DiscoveredServer | None:
    root = f"http://{host}:{port}"
    probes = registry.probed_kinds("openai")
    version, models, *own = await asyncio.gather(
        _raw_get(host, port, "/api/version"),
        _raw_get(host, port, "/v1/models"),
        *(_raw_get(host, port, kind.probe.path) for kind in probes if kind.probe),
    )
    if version is None and models is None:
        return None  # nothing listens there
    for kind, answer in zip(probes, own, strict=True):
        if kind.probe and (name := kind.probe.name_of(answer)) is not None:
            names = _entry_names(models, "data", "id")
            return DiscoveredServer(root, "openai", names, name=name)
    if _has_str(version, "version"):
        tags = await _raw_get(host, port, "/api/tags")
        return DiscoveredServer(root, "ollama", _entry_names(tags, "models", "name"))
    if isinstance(models, dict) and isinstance(models.get("data"), list):
        return DiscoveredServer(root, "openai", _entry_names(models, "data", "id"))
    if isinstance(models, _Loading):
        return DiscoveredServer(root, "openai", loading=True)
    return None


class _Loading(dict[str, Any]):
    """A 503 "Loading model" answer (an empty dict, so that it reads as no answer)."""


async def _raw_get(host: str, port: int, path: str, limit: int = 1 << 20) -> Any:
    """The JSON of a 200 answer; _Loading for a 503 "Loading model"; {} for another
    status or non-JSON; None if refused."""
    try:
        reader, writer = await asyncio.open_connection(host, port)
    except OSError:
        return None
    try:
        request = f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: application/json\r\n"
        writer.write((request + "Connection: close\r\n\r\n").encode("ascii"))
        head = await reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        headers = dict(_header(line) for line in header_lines if ":" in line)
        length = headers.get("content-length", "")
        body = await (reader.readexactly(int(length)) if length.isdigit() else reader.read(limit))
        if "chunked" in headers.get("transfer-encoding", "").lower():
            body = _unchunk(body)
        status = status_line.split(" ")[1:2]
        if status == ["503"] and is_model_loading(error_text(json.loads(body)) or ""):
            return _Loading()
        if status != ["200"]:
            return {}
        return json.loads(body)
    except (
        OSError,
        ValueError,
        IndexError,
        asyncio.IncompleteReadError,
        asyncio.LimitOverrunError,
    ):
        return {}
    finally:
        writer.close()


def _header(line: str) -> tuple[str, str]:
    name, _, value = line.partition(":")
    return name.strip().lower(), value.strip()


def _unchunk(body: bytes) -> bytes:
    out, rest = bytearray(), body
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0] or b"0", 16)
        if size == 0:
            break
        out += rest[:size]
        rest = rest[size + 2 :]
    return bytes(out)


def _has_str(answer: Any, key: str) -> bool:
    return isinstance(answer, dict) and isinstance(answer.get(key), str)


def _entry_names(answer: Any, key: str, name_key: str) -> list[str]:
    entries = answer.get(key) if isinstance(answer, dict) else None
    if not isinstance(entries, list):
        return []
    return [str(e[name_key]) for e in entries if isinstance(e, dict) and name_key in e]


async def _probe(client: httpx.AsyncClient, root: str) -> _Probe:
    probes = registry.probed_kinds("openai")
    version, models, *own = await asyncio.gather(
        _get(client, f"{root}/api/version"),
        _get(client, f"{root}/v1/models"),
        *(_get(client, f"{root}{kind.probe.path}") for kind in probes if kind.probe),
    )
    for kind, answer in zip(probes, own, strict=True):
        if kind.probe and (name := kind.probe.name_of(_json(answer))) is not None:
            return _Probe("openai", _names(models, "data", "id"), name=name)
    if _is_ollama_version(version):
        tags = await _get(client, f"{root}/api/tags")
        return _Probe("ollama", _names(tags, "models", "name"))
    if isinstance(models, httpx.Response) and _is_model_list(models):
        return _Probe("openai", _names(models, "data", "id"))
    if isinstance(models, httpx.Response) and _is_loading(models):
        return _Probe("openai")  # llama.cpp's server, still loading its model
    if isinstance(models, httpx.Response) and models.status_code in (401, 403):
        return _Probe("openai")  # needs an API key; the key gets the model list later
    home = await _get(client, f"{root}/")
    if isinstance(home, httpx.Response) and "ollama is running" in home.text.lower():
        return _Probe("ollama")
    errors = [r for r in (version, models, home) if isinstance(r, Exception)]
    refused = len(errors) == 3
    return _Probe(refused=refused, detail=_describe(errors[0]) if errors else "")


async def _get(client: httpx.AsyncClient, url: str) -> httpx.Response | Exception:
    try:
        return await client.get(url)
    except httpx.HTTPError as error:
        return error


def _json(response: httpx.Response | Exception) -> Any:
    if not isinstance(response, httpx.Response) or response.status_code != 200:
        return None
    try:
        return response.json()
    except ValueError:
        return None


def _is_ollama_version(response: httpx.Response | Exception) -> bool:
    answer = _json(response)
    return isinstance(answer, dict) and isinstance(answer.get("version"), str)


def _is_loading(response: httpx.Response) -> bool:
    if response.status_code != 503:
        return False
    try:
        return is_model_loading(error_text(response.json()) or "")
    except ValueError:
        return False


def _is_model_list(response: httpx.Response) -> bool:
    answer = _json(response)
    return isinstance(answer, dict) and isinstance(answer.get("data"), list)


def _names(response: httpx.Response | Exception, key: str, name_key: str) -> list[str]:
    return _entry_names(_json(response), key, name_key)


def _describe(error: Exception) -> str:
    if isinstance(error, httpx.TimeoutException):
        return NO_ANSWER_IN_TIME
    return reason_of(error)
