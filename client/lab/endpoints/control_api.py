"""GET/POST /lab/control: the live control over HTTP (lab/running/live.py says what it sets)."""

from __future__ import annotations

import json

from aiohttp import web

from client.lab.running.live import change
from client.lab.running.state import LabState
from client.lab.scenarios.scenario import ScenarioError

PATH = "/lab/control"


def routes(lab: LabState) -> list[web.RouteDef]:
    async def show(request: web.Request) -> web.Response:
        return web.json_response(lab.live.describe())

    async def set_live(request: web.Request) -> web.Response:
        try:
            body = json.loads(await request.read() or b"{}")
        except ValueError as exc:
            return web.json_response({"error": f"invalid JSON body: {exc}"}, status=400)
        if not isinstance(body, dict):
            return web.json_response({"error": "the body is a JSON object"}, status=400)
        try:
            lab.live = change(lab.live, body)
        except ScenarioError as exc:
            return web.json_response({"error": str(exc)}, status=400)
        return web.json_response(lab.live.describe())

    return [web.get(PATH, show), web.post(PATH, set_live)]
