"""Transports below the tool families: the HTTP client with its host policies, the rg runner."""
