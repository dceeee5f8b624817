"""GitHub (and GitHub Enterprise): its API calls, parsing, search syntax and policy."""
