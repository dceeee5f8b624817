"""The faces of octo: the MCP server, the command line, the Python library, the tool docs."""
