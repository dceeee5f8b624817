"""Indexing: the walk over a tree, chunking by symbol (tree-sitter), and the models that turn
chunks into vectors."""
