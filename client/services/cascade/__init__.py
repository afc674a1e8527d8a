"""The cascade: fast and strong routes, the fallback stream, the route record.
May import: servers, planning, storage; client.backends, client.store, client.core.
"""
