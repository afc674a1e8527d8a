"""`tachy detect`: find local LLM servers on the usual ports and the API each speaks.

tachy detect            # 11434 (Ollama), 8000 (vLLM), 8080 (llama.cpp), 1234 (LM Studio)
tachy detect --url http://host:8000   # which API one server speaks (and, for a router,
                                      # "openai  vLLM router · 2 workers")
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time

from client.backends import discover_local_servers
from client.backends.detect import USUAL_PORTS, DiscoveredServer, detect_server
from client.backends.errors import BackendUnreachable, TachyError

EXIT_NOTHING_FOUND = 1
EXIT_UNREACHABLE = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", help="tell which API this one server speaks")
    parser.add_argument(
        "--ports",
        type=_ports,
        default=USUAL_PORTS,
        help="comma-separated ports to probe (default: 11434,8000,8080,1234)",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--budget-ms", type=float, default=300.0, help="time allowed (300)")
    parser.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    if args.url:
        return _detect_one(args.url)
    ports = args.ports
    started = time.perf_counter()
    found = asyncio.run(discover_local_servers(ports, args.host, args.budget_ms / 1000))
    took_ms = (time.perf_counter() - started) * 1000
    if args.json:
        print(json.dumps([_as_json(s) for s in found]))
    else:
        for server in found:
            models = ", ".join(server.models) if server.models else "no models listed"
            name = f"{server.name}  " if server.name else ""
            print(f"{server.url}  {server.api}  {name}{models}")
        ports_text = ", ".join(str(p) for p in ports)
        summary = f"{len(found)} server(s) on {args.host} ports {ports_text} in {took_ms:.0f} ms"
        print(summary, file=sys.stderr)
    if not found and not args.json:
        print("No local server found. Pass --url URL or run `tachy serve-local`.", file=sys.stderr)
    return 0 if found else EXIT_NOTHING_FOUND


def _detect_one(url: str) -> int:
    try:
        server = asyncio.run(detect_server(url))
    except BackendUnreachable as error:
        print(error, file=sys.stderr)
        return EXIT_UNREACHABLE
    except TachyError as error:
        print(error, file=sys.stderr)
        return EXIT_NOTHING_FOUND
    print(f"{server.api}  {server.name}" if server.name else server.api)
    return 0


def _as_json(server: DiscoveredServer) -> dict[str, object]:
    """A server found; "name" only for a kind that says more than its API (a router)."""
    found: dict[str, object] = {"url": server.url, "api": server.api, "models": server.models}
    if server.name:
        found["name"] = server.name
    return found


def _ports(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError("use numbers like 11434,8000") from None
