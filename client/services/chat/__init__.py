"""A chat turn from Send to the last word: session, generation, saving, history.
May import: cascade, images, knowledge, fleet, servers, planning, storage, backends, store, core.
"""
