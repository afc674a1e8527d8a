"""`tachy bench`: measured requests, loads, sweeps, cascade runs, exports.
May import: race, chat, cascade, fleet, servers, planning, tools, storage, backends, store, core.
"""
