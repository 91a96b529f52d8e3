"""The project on disk: finding games, the one guarded way to read and write files, atomic
output, named limits, errors.
"""
