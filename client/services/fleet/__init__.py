"""Server pools: several servers of one model chosen per answer by a policy, and their figures.
May import: servers, planning, storage, backends, store, core.
"""
