"""`sgconfig.yml`: find it, read it, create it, and name the rule, test and util directories.

The project config is read with a safe YAML loader and cached by mtime; it is only ever written by
`initialize`, which never overwrites an existing file.
"""

# No `from __future__ import annotations`: a NamedTuple compiles each string annotation (see core/settings.py).
import errno
import functools
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from sgtools.core import bounded, yamlio
from sgtools.core.errors import ConfigMissing, IoFailure, OutsideWorkspace, RuleInvalid
from sgtools.project.workspace import Workspace

if TYPE_CHECKING:  # a shape only: a scan never loads contracts/project.py (the server's schemas do)
    from sgtools.contracts.project import InitializeResult

CONFIG_NAME = "sgconfig.yml"
DEFAULT_CONFIG = """\
ruleDirs:
- rules
utilDirs:
- utils
testConfigs:
- testDir: rule-tests
"""
RULE_SUFFIXES = (".yml", ".yaml")
# An empty file in each folder `initialize` creates, so that git keeps the folder (ast-grep ignores it).
PLACEHOLDER = ".gitkeep"


class ProjectConfig(NamedTuple):
    """What the tools need from `sgconfig.yml`; directories are absolute, resolved paths. A NamedTuple (the
    default dicts are never changed in place): no module on a CLI scan's path imports `dataclasses`."""

    path: Path
    rule_dirs: tuple[Path, ...]
    util_dirs: tuple[Path, ...]
    test_dirs: tuple[Path, ...]
    snapshot_dirs: tuple[Path, ...]
    language_globs: dict[str, list[str]] = {}  # noqa: RUF012
    raw: dict[str, Any] = {}  # noqa: RUF012

    @property
    def root(self) -> Path:
        return self.path.parent

    def relative(self, path: Path) -> str | None:
        """`path` relative to the sgconfig directory, as ast-grep matches rule globs; None when outside it."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return None

    def rule_files(self) -> list[Path]:
        """Every rule file ast-grep would load, sorted; missing directories yield nothing."""
        return yaml_files(self.rule_dirs)

    def util_files(self) -> list[Path]:
        return yaml_files(self.util_dirs)

    def test_files(self) -> list[Path]:
        return yaml_files(self.test_dirs)

    @property
    def first_rule_dir(self) -> Path:
        if not self.rule_dirs:
            raise ConfigMissing(
                f"{self.path} names no ruleDirs. Add `ruleDirs: [rules]` to it, then retry."
            )
        return self.rule_dirs[0]

    @property
    def first_test_dir(self) -> Path | None:
        return self.test_dirs[0] if self.test_dirs else None


def yaml_files(dirs: Iterable[Path]) -> list[Path]:
    """The `.yml`/`.yaml` files under `dirs` (snapshots excluded), sorted, each once; missing dirs yield nothing."""
    files: set[Path] = set()
    for d in dirs:
        if d.is_dir():
            files.update(p for p in d.rglob("*") if p.suffix in RULE_SUFFIXES and p.is_file()
                         and "__snapshots__" not in p.parts)
    return sorted(files)


def config_path(ws: Workspace) -> Path:
    return ws.root / CONFIG_NAME


def load_config(ws: Workspace) -> ProjectConfig:
    """The project config, or `[config-missing]` telling the agent how to create one."""
    path = config_path(ws)
    try:
        st = path.stat()
    except FileNotFoundError:
        raise ConfigMissing(
            f"{CONFIG_NAME} not found in {ws.root}. Run the initialize_ast_grep tool first, then "
            "retry."
        ) from None
    cfg = _load_cached(str(path), st.st_mtime_ns, st.st_size)
    _check_dirs(ws, cfg)
    return cfg


_ABSENT = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)


def _check_dirs(ws: Workspace, cfg: ProjectConfig) -> None:
    """Directories named in sgconfig.yml must lie inside the root and be directories (a few stat calls, not
    cached: they can change between calls). A file in their place or a path outside the root is named here,
    with the fix, rather than failing later inside ast-grep or a write."""
    root = str(ws.root)
    prefix = root if root.endswith(os.sep) else root + os.sep  # both resolved: a string prefix is a parent
    for key, dirs in (("ruleDirs", cfg.rule_dirs), ("utilDirs", cfg.util_dirs), ("testConfigs", cfg.test_dirs)):
        for d in dirs:
            if not str(d).startswith(prefix) and d != ws.root and ws.root not in d.parents:
                raise OutsideWorkspace(
                    f"`{key}` in {CONFIG_NAME} names {d}, outside the workspace root {ws.root}. Move that directory "
                    f"inside the root and update {CONFIG_NAME}, or start with --root at a directory holding both.")
            try:
                mode = os.stat(d).st_mode  # one stat: what `exists() and not is_dir()` asked with two
            except ValueError:
                continue
            except OSError as exc:
                if exc.errno in _ABSENT:
                    continue  # what Path.exists() reads as "not there"; any other error is raised, as it did
                raise
            if not stat.S_ISDIR(mode):
                raise IoFailure(
                    f"{ws.relative(d)} (named by `{key}` in {CONFIG_NAME}) is a file, not a directory. Rename or "
                    "remove it, then run initialize_ast_grep (`sgtools init`) to recreate the directory.")


def try_load_config(ws: Workspace) -> ProjectConfig | None:
    try:
        return load_config(ws)
    except ConfigMissing:
        return None


@functools.lru_cache(maxsize=32)
def _load_cached(path_str: str, _mtime: int, _size: int) -> ProjectConfig:
    path = Path(path_str)
    try:
        data = yamlio.load_one(bounded.read_file(path, CONFIG_NAME, "max_rule_bytes"))
    except (yamlio.YamlError, UnicodeDecodeError) as exc:
        raise RuleInvalid(f"{CONFIG_NAME} is not valid YAML: {exc}. Fix the file, then retry.") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise RuleInvalid(f"{CONFIG_NAME} must be a mapping (keys such as ruleDirs). Fix the file, then retry.")
    root = path.parent

    def dirs(key: str, sub: str | None = None) -> tuple[Path, ...]:
        value = data.get(key) or []
        if not isinstance(value, list):
            raise RuleInvalid(f"`{key}` in {CONFIG_NAME} must be a list. Fix the file, then retry.")
        out: list[Path] = []
        for item in value:
            entry = item.get(sub) if sub and isinstance(item, dict) else item
            if isinstance(entry, str):
                out.append((root / entry).resolve())
        return tuple(out)

    snapshots: list[Path] = []
    for item in data.get("testConfigs") or []:
        if isinstance(item, dict) and isinstance(item.get("testDir"), str):
            snap = item.get("snapshotDir") or "__snapshots__"
            snapshots.append((root / item["testDir"] / snap).resolve())
    globs = data.get("languageGlobs") or {}
    return ProjectConfig(
        path=path,
        rule_dirs=dirs("ruleDirs"),
        util_dirs=dirs("utilDirs"),
        test_dirs=dirs("testConfigs", "testDir"),
        snapshot_dirs=tuple(snapshots),
        language_globs={str(k): [str(g) for g in (v or [])] for k, v in globs.items()}
        if isinstance(globs, dict) else {},
        raw=data,
    )


class InitResult(NamedTuple):
    """What `initialize` made and found (a NamedTuple: every CLI start imports this module, and a dataclass costs
    several times more to define)."""

    created: list[str]
    existing: list[str]

    @property
    def message(self) -> str:
        if not self.created:
            return "The project was already initialized; nothing was changed."
        return "Created " + ", ".join(self.created) + "."

    def to_result(self) -> "InitializeResult":
        """The initialize_ast_grep result (`sgtools init --json` prints the same)."""
        return {"success": True, "message": self.message, "created": self.created, "existing": self.existing}


def initialize(ws: Workspace) -> InitResult:
    """Create `sgconfig.yml`, `rules/`, `utils/`, `rule-tests/` (each with a `.gitkeep`); never overwrite; fill in
    missing dirs."""
    created: list[str] = []
    existing: list[str] = []
    with ws.lock():
        path = config_path(ws)
        if path.exists():
            existing.append(CONFIG_NAME)
        else:
            ws.write_text(CONFIG_NAME, DEFAULT_CONFIG)
            created.append(CONFIG_NAME)
        cfg = load_config(ws)
        for d in (*cfg.rule_dirs, *cfg.util_dirs, *cfg.test_dirs):
            rel = ws.relative(ws.resolve(d))
            if d.is_dir():
                if rel not in existing:
                    existing.append(rel)
            elif rel not in created:
                ws.mkdir(d)
                # Git keeps no empty folder, and ast-grep refuses a declared folder that is missing: the
                # placeholder makes a fresh clone of the project work with plain ast-grep too.
                ws.write_text(d / PLACEHOLDER, "")
                created.append(rel)
    return InitResult(created=created, existing=existing)


def missing_folders_note(cfg: ProjectConfig) -> str | None:
    """One sentence naming every folder sgconfig.yml declares that does not exist, and the command that creates
    them; None when all exist. ast-grep gets a config without them (engine/configview.py), so scans still run."""
    from sgtools.engine.configview import missing_dirs

    missing = missing_dirs(cfg.path)
    if not missing:
        return None
    names = ", ".join(f"`{d}` ({key})" for key, d in missing)
    one = len(missing) == 1
    return (f"{CONFIG_NAME} declares {names}, which {'does' if one else 'do'} not exist (git keeps no empty "
            f"folder, so a fresh clone lacks {'it' if one else 'them'}); scans run without "
            f"{'it' if one else 'them'}. Run the initialize_ast_grep tool to create "
            f"{'it' if one else 'them'} (with a placeholder file that git keeps).")
