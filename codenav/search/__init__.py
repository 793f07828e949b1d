<<<<<<< HEAD
"""Searching and comparing the files of a cached target: matching, symbols, differences."""
=======
"""Searching inside a cached entry: symbols (definitions) by name."""
>>>>>>> h/symbols
