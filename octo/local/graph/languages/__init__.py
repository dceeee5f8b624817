"""Each language family's import statements (found, then parsed) and their resolution to files."""
