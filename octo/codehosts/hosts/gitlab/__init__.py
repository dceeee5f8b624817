"""GitLab (gitlab.com or self-managed): its API calls, parsing, parameters and policy."""
