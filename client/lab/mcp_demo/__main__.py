"""``python -m client.lab.mcp_demo [--fault start-crash|start-hang]``: the demo server on stdio."""

from __future__ import annotations

from client.lab.mcp_demo.server import main

if __name__ == "__main__":
    main()
