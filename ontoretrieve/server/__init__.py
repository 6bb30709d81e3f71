"""The servers: HTTP (``http.create_app``) and MCP (``mcp.create_mcp``), thin shells."""
