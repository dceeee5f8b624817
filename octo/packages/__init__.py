"""The package family: packageSearch on the user's npm registry and Python index."""
