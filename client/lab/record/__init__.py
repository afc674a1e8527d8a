"""Recording a real server through the lab (`tachy lab --record`), and scrubbing a recording.
May import: replies, running, dialects, timing, scenarios, text, aiohttp; not endpoints.
"""
