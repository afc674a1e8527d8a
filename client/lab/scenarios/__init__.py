"""What the lab plays: scenario dials, presets and faults, recordings, sequences, keep_alive.
May import: the standard library; no other folder of the lab, nothing else of client.
"""
