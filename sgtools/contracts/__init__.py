"""Shapes every layer speaks (TypedDicts, no behaviour): the SPEC in code; the MCP schemas derive from them."""
