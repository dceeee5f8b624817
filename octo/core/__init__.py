"""The core every layer uses: errors, envelopes, settings, cache, budgets, paths, redaction."""
