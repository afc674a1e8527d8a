"""Servers and models: backends, saved servers, model status and admin.
May import: planning, storage; client.backends, client.store, client.core.
"""
