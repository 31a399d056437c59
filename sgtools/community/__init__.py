"""Community rules: the index format, sources, search, migration and import."""
