"""The MCP server: its tools, resources and prompts, `octo serve` over stdio or HTTP, the stdio wire, the published tools/list."""
