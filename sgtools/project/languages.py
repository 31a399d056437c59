"""Which language a name or a path means in this project: the built-in languages plus sgconfig's
`customLanguages`, with `languageGlobs` remapping file names. The one place that resolves a language, so the
rule store, the scanner and test_rule accept and refuse the same names.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from sgtools.core import languages
from sgtools.core.errors import BadInput
from sgtools.project.config import ProjectConfig


def custom_languages(cfg: ProjectConfig | None) -> dict[str, dict[str, Any]]:
    """sgconfig's `customLanguages` entries (name -> spec); {} without a project. An entry that is not a
    mapping is not a language (ast-grep refuses such a config)."""
    raw = (cfg.raw.get("customLanguages") if cfg is not None else None) or {}
    return {str(k): v for k, v in raw.items() if isinstance(v, dict)} if isinstance(raw, dict) else {}


def language_key(name: str | None, cfg: ProjectConfig | None = None) -> str | None:
    """One key per language whatever the spelling: built-in languages by canonical name (any alias, any case,
    as ast-grep accepts them), custom languages by their sgconfig name, matched exactly as ast-grep does."""
    if not name:
        return None
    canon = languages.canonical(name)
    if canon is not None:
        return canon
    return name if name in custom_languages(cfg) else None


def unknown_language_message(cfg: ProjectConfig | None, name: str) -> str:
    names = sorted(languages.LANGUAGES) + sorted(custom_languages(cfg))
    aliases = sorted({a for canon, (al, _, _) in languages.LANGUAGES.items() for a in (canon, *al)})
    import difflib  # only to word an error: not on every scan's start-up path

    spelled = name.lower().replace("#", "sharp").replace("+", "p").replace("-", "").replace(" ", "")
    # `C#` and `C++` are spellings of csharp and cpp, not typos of `c`.
    close = [spelled] if spelled in aliases else difflib.get_close_matches(name.lower(), aliases + names, n=1,
                                                                           cutoff=0.6)
    hint = f" Did you mean {languages.canonical(close[0]) or close[0]}?" if close else ""
    return f"{name!r} is not a language ast-grep knows.{hint} Use one of: {', '.join(names)}."


def language_for_path(rel_path: str, cfg: ProjectConfig | None) -> str | None:
    """The language ast-grep gives a file: `languageGlobs` first (matched on the file name, as ast-grep does),
    then custom language extensions, then the built-in extensions."""
    name = PurePosixPath(rel_path).name
    if cfg is not None:
        if cfg.language_globs:  # the glob matcher loads only for a project that has some
            from sgtools.core.globs import glob_match

        for lang, globs in cfg.language_globs.items():
            if any(glob_match(g, name) for g in globs):
                key = language_key(lang, cfg)
                if key is not None:
                    return key
        suffix = PurePosixPath(rel_path).suffix.lstrip(".")
        for key, spec in custom_languages(cfg).items():
            if suffix and suffix in [str(e) for e in spec.get("extensions") or []]:
                return key
    return languages.from_path(rel_path)


def file_name_for(language: str, cfg: ProjectConfig | None) -> str:
    """A file name ast-grep parses as `language` under this config (languageGlobs can remap extensions)."""
    custom = custom_languages(cfg).get(language)
    exts = [str(e) for e in custom.get("extensions") or []] if custom else []
    if not exts and language in languages.LANGUAGES:
        exts = list(languages.LANGUAGES[language][1])
    for ext in exts:
        if language_for_path(f"snippet.{ext}", cfg) == language:
            return f"snippet.{ext}"
    raise BadInput(f"No file extension maps to {language} in this project (check languageGlobs in sgconfig.yml).")


def resolve_language(cfg: ProjectConfig | None, language: str | None, rel_path: str | None) -> str:
    if language is not None and str(language).strip():
        key = language_key(str(language), cfg)
        if key is None:
            raise BadInput(
                f"Unknown language {language!r}. Use one ast-grep knows, e.g. "
                + ", ".join(sorted(languages.LANGUAGES)) + "."
            )
        return key
    if rel_path is not None:
        key = language_for_path(rel_path, cfg)
        if key is None:
            raise BadInput(f"Cannot tell the language of {rel_path} from its name. Pass `language` as well.")
        return key
    raise BadInput("Pass `language` (e.g. python), or a `path` whose extension names the language.")

