"""Pure domain: events, request timeline and metrics, stats, tiers, prediction, budget, tools.
May import: nothing of client; the standard library only: no Qt, no httpx, no sqlite."""
