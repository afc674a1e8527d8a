"""What the lab's models say: the corpus of words, the chat template's prompt tokens, embeddings.
May import: the standard library; no other folder of the lab, nothing else of client.
"""
