"""Model text in a QTextDocument with every door closed: safe Markdown, code colours, edits.
May import: ui.common, Qt, Pygments.
"""
