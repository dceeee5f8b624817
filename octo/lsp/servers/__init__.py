"""The language servers octo runs: finding, starting, pooling and talking to them."""
