"""Pure domain: events, request timeline and metrics, stats, tiers. No Qt, no httpx, no sqlite."""
