"""The code hosts: the CodeHost interface, GitHub, GitLab, and which one answers a query."""
