"""Reading a game: its files, typed records, fonts, icons, built-in code and the caches of what
was read.
"""
