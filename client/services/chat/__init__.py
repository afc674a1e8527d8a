"""A chat turn from Send to the last word: session, generation, saving, history.
May import: cascade, knowledge, fleet, images, servers, tools, events, planning, storage,
backends, store, core.
"""
