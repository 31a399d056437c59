"""`sgtools lang add NAME --from SOURCE`: build a tree-sitter grammar into a parser library ast-grep can load.

ast-grep parses any tree-sitter grammar registered under `customLanguages`, but grammars are published as
sources (an sdist or npm tarball holding `src/parser.c`, sometimes a `scanner.c`), and the Python wheels of
grammars hide the symbol ast-grep needs. So we compile the C sources with the system compiler into the user
cache, register the library in `sgconfig.yml`, trust it (the user built it), and prove it with a sample parse.
"""

from __future__ import annotations

import copy
import hashlib
import re
import shutil
import tarfile
import zipfile
from pathlib import Path
from typing import Any, TypedDict

from sgtools.core import yamlio
from sgtools.core.cache import cache_root
from sgtools.core.errors import BadInput, EngineFailed, NotFound, TooLarge
from sgtools.engine import trust
from sgtools.engine.process import Engine
from sgtools.engine.spawn import run_tool
from sgtools.engine.tempdirs import private_dir
from sgtools.project.config import load_config
from sgtools.project.workspace import Workspace

NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")
SYMBOL = re.compile(rb"\b(?:extern\s+)?(?:const\s+)?TSLanguage\s*\*\s*(tree_sitter_\w+)\s*\(\s*(?:void)?\s*\)")
COMPILERS = ("cc", "gcc", "clang")
MAX_ARCHIVE_BYTES = 256 << 20
COMPILE_TIMEOUT = 300.0


class LanguageAdded(TypedDict):
    success: bool
    message: str
    language: str
    libraryPath: str
    languageSymbol: str
    extensions: list[str]
    sources: list[str]
    sample: SampleParse


class SampleParse(TypedDict):
    file: str | None
    root: str | None
    errors: int


def grammar_dir() -> Path:
    return cache_root() / "grammars"


def _extract(archive: Path, into: Path) -> Path:
    """Unpack an sdist/npm tarball or zip with no path leaving `into` (tarfile's `data` filter refuses links out,
    absolute names and devices)."""
    if archive.stat().st_size > MAX_ARCHIVE_BYTES:
        raise TooLarge(f"{archive} is larger than {MAX_ARCHIVE_BYTES >> 20} MiB; unpack it and pass the directory.")
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            for member in zf.namelist():
                target = (into / member).resolve()
                if not target.is_relative_to(into.resolve()):
                    raise BadInput(f"{archive} holds a path outside the archive ({member!r}); refusing to unpack it.")
            zf.extractall(into)
        return into
    try:
        with tarfile.open(archive) as tf:
            tf.extractall(into, filter="data")
    except (tarfile.TarError, OSError) as exc:
        raise BadInput(f"{archive} is not a tar or zip archive that can be unpacked safely: {exc}") from None
    return into


def find_sources(tree: Path) -> tuple[Path, list[Path]]:
    """`parser.c` (the shallowest, preferring one under `src/`) and the external scanner beside it, if any."""
    parsers = sorted(tree.rglob("parser.c"), key=lambda p: (p.parent.name != "src", len(p.parts), str(p)))
    if not parsers:
        raise NotFound(f"No parser.c under {tree}. Pass a grammar's source directory or source package (an sdist "
                       "or npm tarball that ships src/parser.c); generated sources are needed, not grammar.js.")
    parser = parsers[0]
    sources = [parser]
    if (parser.parent / "scanner.c").is_file():
        sources.append(parser.parent / "scanner.c")
    elif (parser.parent / "scanner.cc").is_file():
        raise BadInput(f"{parser.parent / 'scanner.cc'} is a C++ scanner; build it yourself and use libraryPath.")
    return parser, sources


def language_symbol(parser: Path, name: str) -> str:
    found = [m.decode() for m in SYMBOL.findall(parser.read_bytes())]
    if not found:
        raise BadInput(f"{parser} defines no `TSLanguage *tree_sitter_<name>(void)`; it is not a tree-sitter parser.")
    wanted = f"tree_sitter_{name}"
    return wanted if wanted in found else found[0]


def compiler() -> str:
    for name in COMPILERS:
        path = shutil.which(name)
        if path:
            return path
    raise NotFound("No C compiler found (cc, gcc or clang). Install one (e.g. `apt-get install gcc`), then retry.")


def build_library(name: str, parser: Path, sources: list[Path], engine: Engine) -> Path:
    """Compile into the user cache under a content-addressed name, so a rebuild never changes a trusted file."""
    digest = hashlib.sha256()
    for src in sources:
        digest.update(src.name.encode() + b"\0" + src.read_bytes())
    out_dir = grammar_dir()
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"{name}-{digest.hexdigest()[:16]}.so"
    if out.is_file():
        return out
    tmp = out.with_suffix(".so.tmp")
    argv = [compiler(), "-shared", "-fPIC", "-O2", "-I", str(parser.parent), "-o", str(tmp), *map(str, sources)]
    result = run_tool(argv, parser.parent, COMPILE_TIMEOUT)
    if result.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise EngineFailed(f"The C compiler could not build the {name} grammar (exit {result.returncode}): "
                           f"{result.stderr.strip()[-800:]}")
    tmp.replace(out)
    return out


def _entry(name: str, library: Path, symbol: str, extensions: list[str]) -> dict[str, Any]:
    entry: dict[str, Any] = {"libraryPath": str(library), "extensions": extensions}
    if symbol != f"tree_sitter_{name}":
        entry["languageSymbol"] = symbol
    return entry


def _proven(ws: Workspace, engine: Engine, name: str, entry: dict[str, Any], sample: Path | None) -> SampleParse:
    """The sample parsed with the new language, registered only in a private config, and the library trusted once
    it parsed. For the parse itself the library this call built is allowed for that one engine call, never
    written to the trust store: a parse that fails, or a SIGKILL during it, leaves the store as it was (it was
    trusted for the parse before, and a kill then left it trusted with no config naming it). The project's
    sgconfig.yml is never touched here."""
    allowed = copy.copy(engine)
    allowed.custom_languages = "allow"
    with private_dir("lang-") as tmp:
        private = Path(tmp) / "sgconfig.yml"
        private.write_text(yamlio.dump_rt({"ruleDirs": [], "customLanguages": {name: entry}}), encoding="utf-8")
        parsed = _sample(ws, allowed, private, name, sample)
        trust.trust(private)
    return parsed


def _register(ws: Workspace, name: str, entry: dict[str, Any]) -> Path:
    cfg = load_config(ws)
    with ws.lock():
        doc = yamlio.load_rt(cfg.path.read_text(encoding="utf-8")) or {}
        custom = doc.get("customLanguages")
        if custom is None:
            doc["customLanguages"] = custom = {}
        custom[name] = entry
        ws.write_text(cfg.path, yamlio.dump_rt(doc))
    return cfg.path


def _sample(ws: Workspace, engine: Engine, config: Path, name: str, sample: Path | None) -> SampleParse:
    """Parse one file with the new language: the user's sample, else an empty document (the root still shows)."""
    try:
        code = sample.read_text(encoding="utf-8", errors="replace") if sample is not None else ""
    except OSError as exc:
        raise NotFound(f"Cannot read the sample {sample}: {exc.strerror or exc}. Pass an existing file.") from None
    tree, result = engine.dump_tree(code or "x", name, "cst", cwd=ws.root, config=config)
    if not tree and result.returncode not in (0, 1):
        raise engine.fail(result, f"parse a sample with the new {name} grammar")
    lines = tree.splitlines()
    root = lines[0].split()[0] if lines else None
    return {"file": str(sample) if sample else None, "root": root, "errors": tree.count("ERROR")}


def add_language(ws: Workspace, engine: Engine, name: str, source: str, extensions: list[str],
                 sample: str | None = None) -> LanguageAdded:
    if not NAME.fullmatch(name or ""):
        raise BadInput(f"Language name {name!r} must be lower-case letters, digits or _, starting with a letter.")
    exts = sorted({e.lstrip(".") for e in extensions if e.strip(". ")})
    if not exts:
        raise BadInput("Give the file extensions this language parses, e.g. `--ext adb --ext ads`.")
    src = Path(source).expanduser()
    if not src.exists():
        raise NotFound(f"{source} does not exist. Pass a grammar source directory or its sdist / npm tarball.")
    with private_dir("grammar-") as tmp:
        tree = src if src.is_dir() else _extract(src, Path(tmp))
        parser, sources = find_sources(tree)
        symbol = language_symbol(parser, name)
        library = build_library(name, parser, sources, engine)
        used = [str(p.relative_to(tree)) for p in sources]
    entry = _entry(name, library, symbol, exts)
    parsed = _proven(ws, engine, name, entry, Path(sample) if sample else None)
    # Only a proven grammar reaches the project: sgconfig.yml is written once, whole, after the sample parsed
    # (a failure, or a SIGKILL at any step before, leaves it as it was).
    config = _register(ws, name, entry)
    trust.trust(config)
    return {"success": True, "language": name, "libraryPath": str(library), "languageSymbol": symbol,
            "extensions": exts, "sources": used, "sample": parsed,
            "message": f"Added language {name} ({', '.join('.' + e for e in exts)}) from {source}: built "
                       f"{library.name}, registered in {config.name} and trusted; a sample parsed to "
                       f"{parsed['root']} with {parsed['errors']} ERROR node(s)."}
