"""The tools a conversation's turns may use, and who is asked before one runs: the
root holds one (Tachy.turn_tools) and the chat's turn (client/services/chat/tool_step.py)
asks it for each turn's tool loop."""

from __future__ import annotations

from client.services.tools.approval import ApprovalChoice
from client.services.tools.loop import ApprovalAsk, Approver, ToolLoop, step_limit
from client.services.tools.server_settings import ToolServerSettings
from client.services.tools.tool_offer import ToolOffer, conversation_offer
from client.services.tools.tool_servers import ToolServers
from client.store.settings import Settings


class TurnTools:
    """The tools a conversation's turns may use, and who is asked before one runs."""

    def __init__(self, servers: ToolServers, settings: Settings | None) -> None:
        self.servers = servers
        self._settings = settings
        self.approver: Approver | None = None  # None: every call is denied (nobody to ask)
        # The switch turned for a conversation not stored yet: kept by its first turn.
        self.new_conversation_on: bool | None = None
        self.lent: list[str] = []  # servers offered in every conversation, saved nowhere

    def lend(self, server: ToolServerSettings) -> None:
        """Offer `server` in every conversation's turns until it is taken back, saved
        nowhere (not in the settings, not in the keyring): the Demo menu's demo tools."""
        self.servers.use_unsaved(server)
        if server.name not in self.lent:
            self.lent.append(server.name)

    async def take_back(self, name: str) -> None:
        """A lent server is offered no more, and stopped."""
        if name in self.lent:
            self.lent.remove(name)
            await self.servers.forget_unsaved(name)

    def uses_tools(self, conversation_id: int | None) -> bool:
        if conversation_id is None and self.new_conversation_on is not None:
            return self.new_conversation_on
        return bool(self.servers.saved.enabled_for(conversation_id))

    def use_tools(self, conversation_id: int | None, on: bool) -> None:
        """The conversation's switch: all saved servers on or off for it."""
        if conversation_id is None:
            self.new_conversation_on = on
            return
        saved = self.servers.saved
        for server in saved.servers():
            saved.set_enabled_for(conversation_id, server.name, on)

    async def loop_for(
        self, conversation_id: int | None, most_calls: int, new: bool = False
    ) -> ToolLoop | None:
        """The turn's tool loop; None when the conversation uses no server with tools.
        `new`: the turn began the conversation (it takes the switch turned before)."""
        if new and conversation_id is not None and self.new_conversation_on is not None:
            self.use_tools(conversation_id, self.new_conversation_on)
            self.new_conversation_on = None
        if not self.servers.saved.enabled_for(conversation_id) and not self.lent:
            return None
        offer, _problems = await conversation_offer(self.servers, conversation_id, self.lent)
        if not offer:
            return None
        limit = min(step_limit(self._settings), most_calls)
        return ToolLoop(None, offer, self.servers, self._ask, step_limit=limit)

    def offer_known_now(self, conversation_id: int | None) -> ToolOffer | None:
        """The tools the conversation's next turn will offer, when known without starting
        or asking a server (no I/O but the settings' read): empty when it uses none; None
        when a server of it is not listed yet (its turn starts it). A server that failed
        to start and is not due to be tried again offers nothing, as in the turn (which
        goes on with the others). The warmer's and type-ahead's plans carry them, as the
        turn's first model call will."""
        names = [*self._servers_of(conversation_id), *self.lent]
        if not names:
            return ToolOffer()
        listing = self.servers.known_listing(names)
        return ToolOffer.of(listing) if listing is not None else None

    def _servers_of(self, conversation_id: int | None) -> list[str]:
        """The saved servers the conversation's next turn uses (a conversation not stored
        yet: the switch turned for it, which its first turn keeps)."""
        on = self.new_conversation_on if conversation_id is None else None
        if on is None:
            return self.servers.saved.enabled_for(conversation_id)
        return [server.name for server in self.servers.saved.servers()] if on else []

    async def _ask(self, ask: ApprovalAsk) -> ApprovalChoice:
        if self.approver is None:
            return ApprovalChoice.DENY
        return await self.approver(ask)
