"""CI: workflow runs (GitLab pipelines) and the failure-reduced logs of their jobs."""
