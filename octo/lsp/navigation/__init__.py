"""Questions about a symbol at a place: definition, references, calls, hover, types."""
