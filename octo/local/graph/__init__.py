"""localDependencyGraph: who imports what, over the files of a root."""
