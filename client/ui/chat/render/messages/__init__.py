"""What each message shows: frames, speaker, label, reasoning, tool cards, footer, sources, markers.
May import: markdown, look, ui.common, ui.chat (a type), client.services, client.core.
"""
