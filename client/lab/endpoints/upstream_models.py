"""Model names the lab offers: the scenario's model, or what the upstream lists."""

from __future__ import annotations

import aiohttp

from client.lab.running.state import LabState


async def model_names(lab: LabState) -> list[str]:
    if lab.upstream is None or lab.session is None:
        own = [*lab.own_models(), *lab.pulled]  # and what was pulled (lab/endpoints/pulling.py)
        return [name for name in own if name not in lab.removed]
    url = lab.upstream.rstrip("/") + "/v1/models"
    try:
        async with lab.session.get(url, timeout=aiohttp.ClientTimeout(total=5)) as response:
            body = await response.json(content_type=None)
        names = [str(entry["id"]) for entry in body.get("data", []) if "id" in entry]
    except (aiohttp.ClientError, TimeoutError, ValueError, KeyError, AttributeError, TypeError):
        names = []
    return names or lab.own_models()
