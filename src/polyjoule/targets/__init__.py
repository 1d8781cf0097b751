"""Targets: each a declaration (its machine as data) plus the search protocol."""
