"""Backends behind the tools: ripgrep, GitHub, GitLab, package registries."""
