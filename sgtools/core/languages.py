"""ast-grep's built-in languages: canonical names, the aliases it accepts, and file extensions.

Used to accept any name ast-grep accepts, to infer a language from a path, and to pick comment syntax.
"""

from __future__ import annotations

from pathlib import PurePath

from sgtools.core.errors import BadInput

# canonical (as `language:` is usually written) -> (aliases, extensions, line comment prefix)
LANGUAGES: dict[str, tuple[tuple[str, ...], tuple[str, ...], str | None]] = {
    "bash": (("bash",), ("bash", "bats", "cgi", "command", "env", "fcgi", "ksh", "sh", "tmux", "tool", "zsh"), "#"),
    "c": (("c",), ("c", "h"), "//"),
    "cpp": (("cpp", "cc", "c++", "cxx"), ("cc", "hpp", "cpp", "c++", "hh", "cxx", "cu", "ino"), "//"),
    "csharp": (("csharp", "cs"), ("cs",), "//"),
    "css": (("css",), ("css",), None),
    "dart": (("dart",), ("dart",), "//"),
    "elixir": (("elixir", "ex"), ("ex", "exs"), "#"),
    "go": (("go", "golang"), ("go",), "//"),
    "haskell": (("haskell", "hs"), ("hs",), "--"),
    "hcl": (("hcl",), ("hcl", "tf", "tfvars"), "#"),
    "html": (("html",), ("html", "htm", "xhtml"), None),
    "java": (("java",), ("java",), "//"),
    "javascript": (("javascript", "js", "jsx"), ("cjs", "js", "mjs", "jsx"), "//"),
    "json": (("json",), ("json",), None),
    "kotlin": (("kotlin", "kt"), ("kt", "ktm", "kts"), "//"),
    "lua": (("lua",), ("lua",), "--"),
    "markdown": (("markdown", "md"), ("md", "markdown"), None),
    "nix": (("nix",), ("nix",), "#"),
    "php": (("php",), ("php",), "//"),
    "python": (("python", "py"), ("py", "py3", "pyi", "bzl"), "#"),
    "ruby": (("ruby", "rb"), ("rb", "rbw", "gemspec"), "#"),
    "rust": (("rust", "rs"), ("rs",), "//"),
    "scala": (("scala",), ("scala", "sc", "sbt"), "//"),
    "solidity": (("solidity", "sol"), ("sol",), "//"),
    "swift": (("swift",), ("swift",), "//"),
    "tsx": (("tsx",), ("tsx",), "//"),
    "typescript": (("typescript", "ts"), ("ts", "cts", "mts"), "//"),
    "yaml": (("yaml", "yml"), ("yml", "yaml"), "#"),
    "zig": (("zig",), ("zig",), "//"),
}

_ALIASES = {alias: canon for canon, (aliases, _, _) in LANGUAGES.items() for alias in (canon, *aliases)}
_EXTENSIONS = {ext: canon for canon, (_, exts, _) in LANGUAGES.items() for ext in exts}


def canonical(name: str) -> str | None:
    """The canonical name for any spelling ast-grep accepts (case-insensitive), else None."""
    return _ALIASES.get(name.strip().lower()) if isinstance(name, str) else None


def require(name: str) -> str:
    canon = canonical(name)
    if canon is None:
        raise BadInput(
            f"Unknown language {name!r}. Use one ast-grep knows, e.g. " + ", ".join(sorted(LANGUAGES)) + "."
        )
    return canon


def from_path(path: str) -> str | None:
    suffix = PurePath(path).suffix.lower().lstrip(".")
    return _EXTENSIONS.get(suffix)


def line_comment(language: str) -> str | None:
    canon = canonical(language)
    return LANGUAGES[canon][2] if canon else None
