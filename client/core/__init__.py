"""Pure domain: events, request timeline and metrics, stats, tiers, prediction, budget, tools.
May import: the standard library only; nothing else of client, no Qt, no httpx, no sqlite."""
