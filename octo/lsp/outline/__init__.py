"""Answers about whole files and the workspace: outlines, symbols by name, diagnostics."""
