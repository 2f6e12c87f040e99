"""Transformations: the rewriting rules (today: the editor's exercise transformation)."""
