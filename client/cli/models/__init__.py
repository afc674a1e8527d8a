"""`tachy models`: list a server's models, which of them can see, and Ollama's loaded ones.
May import: chat, common, client.services, client.backends, client.core.

Which can see: where the server says (Ollama's /api/show, llama-server's /props); for
Ollama, which are loaded and until when.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from client.backends.base import ModelInfo
from client.backends.errors import TachyError
from client.backends.vision import vision_support
from client.cli.chat import ServerChoice, add_server_arguments
from client.cli.common.chat_common import EXIT_FAILED, failure_exit
from client.core.printable import visible


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_server_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the list as JSON")
    parser.add_argument("action", nargs="?", choices=["pull", "rm"], help="Ollama only")
    parser.add_argument("name", nargs="?", help="the model to pull or delete")


def run(args: argparse.Namespace) -> int:
    if getattr(args, "action", None):
        return _manage(args)
    try:
        models, where, sight = asyncio.run(_models(args))
    except TachyError as error:
        return failure_exit(error)
    if args.json:
        rows = [{**_as_dict(m), "vision": sight.get(m.name)} for m in models]
        print(json.dumps(rows, indent=2))
        return 0
    print(where)
    if not models:
        print("  (no models)")
    for model in models:
        print("  " + describe(model, sight.get(model.name)))
    return 0


def _manage(args: argparse.Namespace) -> int:
    from client.cli.models import admin as models_admin

    if not args.name:
        print(f"say which model to {args.action}: tachy models {args.action} NAME", file=sys.stderr)
        return 2
    action = models_admin.pull if args.action == "pull" else models_admin.remove
    try:
        print(asyncio.run(action(args)))
    except TachyError as error:
        return failure_exit(error)
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
        return EXIT_FAILED
    return 0


async def _models(args: argparse.Namespace) -> tuple[list[ModelInfo], str, dict[str, bool]]:
    """The models, the server's line, and which can see where the server says (Ollama's
    /api/show capabilities, llama-server's /props modalities)."""
    choice = ServerChoice(args)  # it reads the list, once the server has loaded its model
    async with choice as backend:
        models = choice.models if choice.models is not None else await backend.list_models()
        await backend.server_kind()  # a router says so by an endpoint of its own
        count = f"{len(models)} model" + ("" if len(models) == 1 else "s")
        sight = {}
        for model in models:
            said = (await vision_support(backend, model.name)).sees
            if said is not None:
                sight[model.name] = said
        return models, f"{backend.server_name} at {backend.base_url}: {count}", sight


def describe(model: ModelInfo, sees: bool | None = None) -> str:
    """One model's line; `sees`: whether its server says it can see images (None: not said)."""
    parts = [visible(model.name)]  # whatever the server sent: no escape may act
    if sees is not None:
        parts.append("sees images" if sees else "text only")
    if model.context_length:
        parts.append(f"context {model.context_length}")
    if model.size_bytes:
        parts.append(_size(model.size_bytes))
    if model.loaded:
        until = f" until {model.expires_at}" if model.expires_at else ""
        vram = f", {_size(model.size_vram)} in VRAM" if model.size_vram else ""
        parts.append(f"loaded{until}{vram}")
    elif model.loaded is False:
        parts.append("not loaded")
    return "  ".join(parts)


def _size(size_bytes: int) -> str:
    if size_bytes >= 10**9:
        return f"{size_bytes / 1e9:.1f} GB"
    return f"{size_bytes / 1e6:.0f} MB" if size_bytes >= 10**6 else f"{size_bytes} bytes"


def _as_dict(model: ModelInfo) -> dict[str, object]:
    return {slot: getattr(model, slot) for slot in model.__slots__}
