"""Tools from MCP servers: their settings, the JSON import, connections, calls, approval.
May import: services.storage, services.errors, client.store, client.core, the mcp SDK.

The public face is ``ToolServers`` (tool_servers.py): the servers' tools, a call with a
timeout, progress and cancellation, each server's state; ``ToolApproval`` (approval.py)
says whether a call needs the user's yes. The SDK (slow to import) loads only when a
server is first used, on a thread of its own (tools_thread.py).
"""
