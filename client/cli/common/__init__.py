"""What chat, bench and models share: output, exit codes, --fast/--strong, --pool, --image, waits.
May import: client.services, client.backends, client.store, client.core; no other folder of cli.
"""
