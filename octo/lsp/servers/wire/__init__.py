"""One running language server: its process, the framing of its messages, the protocol and
the client octo talks to it with, its progress and the documents open on it."""
