"""The HTTP side of `octo serve --http`: who may call (token, Host, Origin), how many at once, the operations endpoints, and the legacy SSE transport."""
