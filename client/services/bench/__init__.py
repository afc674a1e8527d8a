"""`tachy bench`: measured requests, loads, sweeps, cascade runs, exports.
May import: cascade, knowledge, servers, planning, storage; backends, store, core.
"""
