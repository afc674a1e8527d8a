"""Which models can see, asked once per server and model, and what that means for
the attach button and for the route of a message with images.

    vision = ModelVision()
    support = await vision.support(route)    # sees: True / False / None (not said)
    why = vision.why_not(route)              # the disabled button's tooltip, or ""
    vision.may_see(route)                    # False: the history's images become notes
    choice = await vision.route_for_images(choice, routes)   # a cascade: one that sees

A server that does not say (vLLM, LM Studio) is tried: its refusal comes back as
`ImagesRefused` with the server's words, and the question is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from client.backends.errors import ImagesRefused
from client.backends.vision import UNKNOWN, VisionSupport, vision_support
from client.services.images.preparation import DEFAULT_LONGEST_SIDE, Preparation
from client.services.planning.planner import Route, RouteChoice

CANNOT_SEE = "{model} cannot see images (the server says it has no vision)."


class ModelVision:
    """What each server said of its models and images, kept for the app's life."""

    def __init__(self) -> None:
        self._known: dict[tuple[int, str], VisionSupport] = {}

    async def support(self, route: Route) -> VisionSupport:
        key = (id(route.backend), route.model)
        if key not in self._known:
            self._known[key] = await vision_support(route.backend, route.model)
        return self._known[key]

    def known(self, route: Route) -> VisionSupport:
        """What is known without asking (UNKNOWN until `support` asked)."""
        return self._known.get((id(route.backend), route.model), UNKNOWN)

    def may_see(self, route: Route) -> bool:
        """False only when the model is known not to see (said, or refused an image):
        the planner then leaves the history's images out (a note in their place)."""
        return self.known(route).sees is not False

    async def ask_all(self, routes: Sequence[Route]) -> None:
        """Ask each route's server once, so `may_see` knows before a request is planned."""
        for route in routes:
            await self.support(route)

    def learn(self, route: Route | None, error: Exception | None) -> bool:
        """A server that did not say refused an image for this model: from now on it
        is known not to see. True when that is new."""
        if route is None or not isinstance(error, ImagesRefused):
            return False
        key = (id(route.backend), route.model)
        told = self._known.get(key, UNKNOWN)
        self._known[key] = VisionSupport(False, None, "refused")
        return told.sees is not False

    def why_not(self, route: Route) -> str:
        """Why images cannot go to this route, in a sentence; "" when they may."""
        if self.known(route).sees is False:
            return CANNOT_SEE.format(model=route.model)
        return ""

    def preparation(self, route: Route, learned_side: int | None = None) -> Preparation:
        """How images for this route are prepared: to the size its server reports, else
        the most its encoder was seen to use (`learned_side`: from the server's count of
        a first image, client.core.images.useful_side), else the default."""
        side = self.known(route).image_size or DEFAULT_LONGEST_SIDE
        if learned_side is not None:
            side = min(side, learned_side)
        return Preparation(longest_side=side)

    async def first_that_sees(self, candidates: Sequence[Route]) -> Route | None:
        """The first candidate whose server says its model can see (a text model was
        offered an image: the window offers this one instead); None when none says so."""
        for route in candidates:
            try:
                if (await self.support(route)).sees is True:
                    return route
            except Exception:  # a server that cannot be asked now is passed over
                continue
        return None

    async def route_for_images(self, choice: RouteChoice, routes: Sequence[Route]) -> RouteChoice:
        """A message with images goes to a model that can see: the chosen one unless
        its server says it cannot and another candidate (a cascade's other model) may."""
        if (await self.support(choice.route)).sees is not False:
            return choice
        for other in routes:
            if other is not choice.route and (await self.support(other)).sees is not False:
                why = f"{other.model} can see the image; {choice.route.model} cannot"
                return replace(choice, route=other, why=why)
        return choice  # none can: the server's refusal is shown, the question kept
