"""Transports below the tool families: the HTTP client with its host policies (``http/``), and
the children octo runs: rg, git, every other process."""
