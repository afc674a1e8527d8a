"""How the chat is drawn: one document, a frame per message, safe Markdown, footers.
May import: ui.common, client.services, client.core, ui.chat (only summary_marker.py, a type).
"""
