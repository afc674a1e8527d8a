"""`tachy doctor`: what on this machine stops Tachy from working.
May import: servers, planning, storage; client.backends, client.store, client.core.
"""
