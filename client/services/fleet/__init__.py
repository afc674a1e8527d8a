"""Server pools: several servers serving one model, chosen per request by a policy
(failover, least-loaded, hedged), and what each server did (TTFT, wins).
May import: servers, planning, storage; client.backends, client.store, client.core.
"""
