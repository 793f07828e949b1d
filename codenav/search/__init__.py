"""Searching and comparing the files of a cached target: matching, symbols, differences."""
