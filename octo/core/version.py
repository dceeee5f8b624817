"""octo's version, in the core so that any layer (a language-server handshake) may name it."""

VERSION = "0.1.0"
