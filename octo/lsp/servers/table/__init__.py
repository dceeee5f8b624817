"""The server table: which language servers exist (the built-in entries and the user's servers
file), how each is found and started, and how it is configured for a workspace."""
