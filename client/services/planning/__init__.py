"""The request planner: what a message sends and to whom; router, summaries.
May import: storage, backends, store, core.
"""
