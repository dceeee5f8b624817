"""Where a tool may read: the allowed roots, and opening a checked path without following links;
and the grammars source files are parsed with."""
