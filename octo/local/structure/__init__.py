"""localSearchStructure: structural (syntax-tree) search with ast-grep patterns and rules."""
