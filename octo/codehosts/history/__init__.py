"""History: pull requests, issues and commits, with their comments and diffs."""
