"""A router's mark among a request's server timings: no figures of its own (the worker's,
when it sends them, are beside it), only that a router gave the answer. Stored with the
request's figures, it lets a reopened answer say "via router" as the live one did."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from client.core.server_timings import ServerTimings

KIND_NAME = "vllm_router"


@dataclass(frozen=True, slots=True)
class RouterMark(ServerTimings):
    source: ClassVar[str] = KIND_NAME
