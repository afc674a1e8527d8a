"""The cascade: fast and strong routes, the fallback stream, the route record.
May import: fleet, servers, planning, storage, backends, store, core.
"""
