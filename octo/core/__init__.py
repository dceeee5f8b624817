"""The core every layer uses: errors, envelopes, settings, cache, budgets, paths, redaction."""

#: octo's version, here so that any layer (a language-server handshake) may name it.
VERSION = "0.1.0"
