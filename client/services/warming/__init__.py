"""Keep-alive warming of the model and the prompt, and cold-start measurement.
May import: chat, cascade, knowledge, fleet, servers, events, planning, storage,
backends, store, core.
"""
