"""Servers and models: backends, saved servers, model status and admin.
May import: planning, storage, backends, store, core.
"""
