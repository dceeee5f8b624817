"""Indexing: the walk over a tree, chunking by symbol (syntax trees), and the models that turn
chunks into vectors."""
