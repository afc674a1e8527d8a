"""`tachy doctor`: what on this machine stops Tachy from working.
May import: servers, events, planning, storage, backends, store, core.
"""
