"""A demo MCP server written with the official SDK (stdio): fast, slow, failing tools and faults.
May import: mcp and the standard library; nothing else of client (the lab's contract).

Run it with ``python -m client.lab.mcp_demo`` (see server.py for its tools and faults).
"""
