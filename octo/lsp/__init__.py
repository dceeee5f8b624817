"""The LSP family: goto definition, references and call hierarchy from real language servers."""
