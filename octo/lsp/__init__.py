"""Language-server client, pool and symbol resolution."""
