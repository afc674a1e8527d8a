"""What each message shows: its frames, speaker and label line, reasoning, footer, sources, markers.
May import: markdown, look, ui.common, ui.chat (a type), client.services, client.core.
"""
