"""context-sherpa: rule-driven code checking for AI coding agents and CI, on top of ast-grep."""

__version__ = "0.1.0"
