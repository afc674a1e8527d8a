"""What a server says about itself for the HUD's server view: the short GETs, the
Prometheus text parser and the snapshot every kind's reader fills in.
May import: client.core, client.backends (errors, reasons), httpx; never a kind folder.
"""
