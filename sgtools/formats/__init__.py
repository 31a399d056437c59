"""Renderers for scan results: text, json, sarif, github."""
