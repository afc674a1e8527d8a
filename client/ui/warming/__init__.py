"""Keep-alive and the prompt budget in the window: its controller, menu and the model-state label.
May import: ui.servers, ui.chat, ui.common, client.services, client.core.
"""
