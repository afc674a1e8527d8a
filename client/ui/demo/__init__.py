"""The latency lab in the app (Demo menu), flow files, bench's PNG reports.
May import: ui.race, ui.servers, ui.hud, ui.common, client.services, client.core, client.lab.
"""
