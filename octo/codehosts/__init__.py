"""The code-host family: GitHub and GitLab behind the same tools."""
