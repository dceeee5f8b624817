"""Semantic code search (spec 004): an incremental hybrid index of a tree, keyword side at once,
vectors in the background, kept in SQLite or PostgreSQL + pgvector."""
