"""Images for models that can see: preparing them (downscale, re-encode) and which models see.
May import: servers, planning, storage, backends, store, core (and Pillow, off the loop).
"""
