"""What the chat does: composer, Send/Stop/Continue/Retry, the runner, the stage line.
May import: ui.chat.render, ui.common, client.services, client.core.
"""
