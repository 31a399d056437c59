"""Default excludes: code nobody in this project wrote (dependencies, virtual environments, build output,
minified bundles) is not scanned when a directory is walked, as semgrep and ruff do.

They are `--globs '!NAME'` arguments to ast-grep: a name without `/` matches at any depth of the walk, and a
file named explicitly on the command line is still scanned (ast-grep applies globs to the walk only), so
`sgtools scan vendor/x.js` checks that file. Off with `sgtools scan --no-default-excludes`, or for a project
with `defaultExcludes: false` in sgconfig.yml (ast-grep ignores keys it does not know). Content markers such
as `@generated` are issue 21's (findings worth reading), which counts files skipped that way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from sgtools.project.config import ProjectConfig

CONFIG_KEY: Final = "defaultExcludes"
# Folder names (any depth) and file globs. Hidden folders (.venv, .tox, .git) are skipped by ast-grep already;
# `.venv` stays listed so the list reads complete.
DEFAULT_EXCLUDES: Final = (
    "node_modules", "bower_components", "jspm_packages", "vendor", "third_party", "third-party", "deps",
    ".venv", "venv", "site-packages", "__pycache__", "build", "dist",
    "*.min.js", "*.min.mjs", "*.min.css", "*-min.js", "*.bundle.js",
)

# Files that ast-grep's built-in bash grammar claims by extension though they are not bash: zsh's glob
# qualifiers, parameter flags and `=(...)` misparse, and rules for bash code then fire inside comments and
# strings; `.cgi`/`.fcgi` name a web-server convention, not a language (git's gitweb.cgi is Perl: the bundled
# bash rules gave 831 warnings in it, all false). Left out of walks (on or off with the default excludes)
# unless sgconfig.yml's `languageGlobs` names the glob (`bash: ["*.zsh"]`: the user says "parse these as
# bash"), or the file is named on the command line.
DIALECT_EXCLUDES: Final = ("*.zsh", "*.cgi", "*.fcgi")


def dialect_args(cfg: ProjectConfig | None) -> list[str]:
    """The ast-grep arguments that leave other shell dialects out of a walk, less those languageGlobs claims."""
    claimed = {g for globs in (cfg.language_globs.values() if cfg is not None else ()) for g in globs}
    return [arg for glob in DIALECT_EXCLUDES if glob not in claimed for arg in ("--globs", f"!{glob}")]


def enabled(cfg: ProjectConfig | None, override: bool | None = None) -> bool:
    """Whether the default excludes apply: the caller's choice when given, else sgconfig.yml's, else on."""
    if override is not None:
        return override
    value = cfg.raw.get(CONFIG_KEY, True) if cfg is not None else True
    return value is not False


def glob_args(on: bool) -> list[str]:
    """The ast-grep arguments that leave the default excludes out of a walk (none when off)."""
    return [arg for name in DEFAULT_EXCLUDES for arg in ("--globs", f"!{name}")] if on else []
