"""What every window area uses: translated words, locale figures, error handler, theme.
May import: client.services, client.core; no other ui area.
"""
