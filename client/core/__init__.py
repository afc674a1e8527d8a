"""Pure domain: events, request timeline and metrics, stats, tiers, prediction, budget.
May import: the standard library only; nothing else of client, no Qt, no httpx, no sqlite."""
