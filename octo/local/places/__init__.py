"""Several places in one local query: paths, lists and globs of directories."""
