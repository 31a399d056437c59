"""Precision harness for the bundled rules over real code that ships through package registries (issue 18).

    python bin/precision.py fetch            # download and unpack the corpus into the cache dir (outside the repo)
    python bin/precision.py sample [-n 5]    # scan each package with the bundled rules, print sampled findings
    python bin/precision.py report           # precision per rule from community_index/precision/verdicts.tsv
    python bin/precision.py signal [-n 60] [--seed 21] [--at REV]  # share worth changing of warnings met at random
    python bin/precision.py kept [--at REV]  # every `tp` verdict still reported (exit 1 if one is lost)

A person reads each sampled finding in context and records a verdict in verdicts.tsv (tab-separated: rule,
language, location, verdict, reason). `tp` is a true problem, `ok` acceptable (the rule's claim holds, the code
is deliberate), `fp` a false positive; precision counts tp and ok as right. The cache dir is
$SGTOOLS_PRECISION_CACHE, else ~/.cache/sgtools-precision. Fetching uses the ordinary clients (pip, npm,
apt-get) by package name.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tarfile
import zipfile
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VERDICTS = ROOT / "community_index" / "precision" / "verdicts.tsv"
# Verdicts on findings only the rules before issue 21's work (518f515) reported: `signal --at` joins them too;
# precision per rule (report) is about the rules as they are, so it reads VERDICTS alone.
VERDICTS_BEFORE = VERDICTS.with_name("verdicts-before.tsv")
# (client, package spec): small, well-known packages whose sources ship in the registry archive.
CORPUS = [
    ("pip", "requests==2.32.3"), ("pip", "flask==3.0.3"), ("pip", "click==8.1.7"), ("pip", "jinja2==3.1.4"),
    ("pip", "werkzeug==3.0.3"), ("npm", "express@4.19.2"), ("npm", "axios@1.7.2"), ("npm", "zod@3.23.8"),
    ("npm", "lodash@4.17.21"), ("npm", "commander@12.1.0"), ("npm", "typeorm@0.3.20"),
    ("apt", "ruby-rack"), ("apt", "php-psr-log"), ("apt", "librust-serde-json-dev"),
    ("apt", "golang-github-gin-gonic-gin-dev"), ("apt", "golang-golang-x-crypto-dev"),
    ("apt", "golang-github-prometheus-client-golang-dev"), ("apt", "golang-github-spf13-cobra-dev"),
    ("apt", "librust-regex-dev"),
]
# JavaScript, TypeScript/TSX, Java, Kotlin, C#, PHP, Ruby and bash: react-native ships its Android Java and Kotlin
# sources, react-native-windows and pythonnet their C#; openjdk-17-source the JDK's own Java (JDK_MODULES of it);
# Debian installs shell scripts without an extension (see _name_shell_scripts).
CORPUS += [
    ("npm", "jquery@3.7.1"), ("npm", "eslint@8.57.0"), ("npm", "webpack@5.97.0"), ("npm", "node-forge@1.3.1"),
    ("npm", "rxjs@7.8.1"), ("npm", "effect@3.11.0"), ("npm", "@trpc/server@10.45.2"),
    ("npm", "react-day-picker@9.4.0"), ("npm", "react-aria-components@1.5.0"), ("npm", "react-native@0.76.5"),
    ("npm", "react-native-windows@0.76.4"), ("npm", "expo-modules-core@2.1.0"), ("pip", "pythonnet==3.0.5"),
    ("apt", "openjdk-17-source"), ("apt", "wordpress"), ("apt", "phpmyadmin"), ("apt", "php-phpseclib"),
    ("apt", "php-doctrine-dbal"), ("apt", "php-guzzlehttp-guzzle"), ("apt", "php-monolog"),
    ("apt", "ruby-activerecord"), ("apt", "ruby-actionpack"), ("apt", "ruby-activesupport"),
    ("apt", "ruby-net-ssh"), ("apt", "ruby-sinatra"), ("apt", "ruby-faraday"),
    ("apt", "bash-completion"), ("apt", "git"), ("apt", "devscripts"), ("apt", "dkms"),
    ("npm", "@docusaurus/theme-classic@3.6.3"), ("npm", "@docusaurus/theme-common@3.6.3"),
    ("npm", "@graphiql/react@0.26.2"), ("npm", "@reduxjs/toolkit@2.5.0"), ("npm", "@tiptap/react@2.10.3"),
    ("npm", "@trpc/react-query@10.45.2"), ("npm", "@tanstack/react-query@5.62.0"),
    ("npm", "com.cysharp.unitask@2.2.5"), ("npm", "electron-edge-js@44.0.0"),  # C#: a Unity package, edge's CLR side
]
# Python, Go, Rust, C and C++: several thousand files each. Debian ships Go and Rust sources in -dev packages,
# installed Python modules in python3-*, and C/C++ upstream tarballs in *-source packages (see _unpack_src_tarballs).
CORPUS += [
    ("apt", "python3-django"), ("apt", "python3-sqlalchemy"), ("apt", "python3-paramiko"),
    ("apt", "python3-twisted"), ("apt", "golang-github-docker-docker-dev"), ("apt", "golang-golang-x-net-dev"),
    ("apt", "golang-github-minio-minio-go-v7-dev"), ("apt", "golang-github-go-sql-driver-mysql-dev"),
    ("apt", "librust-tokio-dev"), ("apt", "librust-hyper-dev"), ("apt", "librust-clap-dev"),
    ("apt", "librust-rustls-dev"), ("apt", "librust-syn-dev"), ("apt", "librust-openssl-dev"),
    ("apt", "librust-rusqlite-dev"), ("apt", "librust-reqwest-dev"), ("apt", "librust-native-tls-dev"),
    ("apt", "bluez-source"), ("apt", "libxcrypt-source"), ("apt", "openvswitch-source"), ("apt", "binutils-source"),
    ("apt", "googletest"), ("apt", "libwebsocketpp-dev"), ("npm", "leveldown@6.1.1"), ("npm", "re2@1.21.3"),
]
JDK_MODULES = ("java.base/", "java.sql/", "java.naming/", "java.net.http/", "jdk.httpserver/", "java.logging/")
SEVERITIES = ("error", "warning")


def cache_dir() -> Path:
    return Path(os.environ.get("SGTOOLS_PRECISION_CACHE") or Path.home() / ".cache" / "sgtools-precision")


def fetch(corpus: list[tuple[str, str]] = CORPUS, root: Path | None = None) -> Path:
    """Download `corpus` into root/dl and unpack each archive into root/src/<name> (kept between runs)."""
    root = root or cache_dir()
    dl, src = root / "dl", root / "src"
    dl.mkdir(parents=True, exist_ok=True)
    src.mkdir(parents=True, exist_ok=True)
    for client, spec in corpus:
        if client == "pip":
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                            "-d", str(dl), spec], check=True)
        elif client == "npm":
            subprocess.run(["npm", "pack", "--silent", spec], cwd=dl, check=True, stdout=subprocess.DEVNULL)
        else:
            subprocess.run(["apt-get", "download", "-q", spec], cwd=dl, check=True)
    for archive in sorted(dl.iterdir()):
        name = archive.name.split(".t")[0] if archive.suffix in {".gz", ".tgz"} else archive.stem
        target = src / name
        if target.exists():
            continue
        target.mkdir()
        if archive.suffix == ".deb":
            subprocess.run(["dpkg-deb", "-x", str(archive), str(target)], check=True)
            _unpack_jdk_sources(target)
            _unpack_src_tarballs(target)
            _name_shell_scripts(target)
        else:
            with tarfile.open(archive) as tar:
                tar.extractall(target, filter="data")
    print(f"corpus in {src}")
    return src


def _unpack_jdk_sources(target: Path) -> None:
    """The JDK's sources ship as one src.zip: unpack the modules in JDK_MODULES next to it."""
    for zipped in target.rglob("src.zip"):
        with zipfile.ZipFile(zipped) as z:
            z.extractall(zipped.parent / "src", [m for m in z.namelist() if m.startswith(JDK_MODULES)])


def _unpack_src_tarballs(target: Path) -> None:
    """A Debian *-source package ships its upstream tarball under usr/src: unpack it there. tar(1), not tarfile:
    tarfile re-reads a compressed stream from its start for every hard link in it (binutils: minutes)."""
    for inner in sorted((target / "usr" / "src").rglob("*.tar.*")) if (target / "usr" / "src").is_dir() else []:
        subprocess.run(["tar", "-xf", str(inner), "-C", str(inner.parent), "--no-same-owner"], check=True)
        inner.unlink()


def _name_shell_scripts(target: Path) -> None:
    """Debian installs scripts without an extension, so a walk would not parse them: scripts with a sh/bash
    shebang and bash-completion's completions get a `.sh` name (the copy is ours, outside the repo)."""
    for f in [p for p in target.rglob("*") if p.is_file() and not p.is_symlink() and not p.suffix]:
        with f.open("rb") as fh:
            head = fh.readline(80)
        if head.startswith((b"#!/bin/sh", b"#!/bin/bash", b"#!/usr/bin/env bash", b"#! /bin/sh")) or (
                "bash-completion/completions" in f.as_posix()):
            f.rename(f.with_name(f.name + ".sh"))


def _findings(package: Path) -> list[dict[str, object]]:
    """Warning+ findings of the bundled rules in one package, cached per package and per bundled index (the scan
    is the slow part; an edit to any rule changes the index and so rescans)."""
    index = hashlib.sha256((ROOT / "community_index" / "index.json").read_bytes()).hexdigest()[:12]
    cached = cache_dir() / "findings" / index / f"{package.name}.json"
    if cached.exists():
        return list(json.loads(cached.read_text()))
    from sgtools.engine.process import Engine
    from sgtools.project.workspace import Workspace
    from sgtools.scan.collect import collect, rule_source

    ws, eng = Workspace(package), Engine()
    found = [dict(d) for d in collect(ws, eng, rule_source(ws, eng), paths=None, min_severity="warning",
                                      verify_fixits=False).issues]
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(found))
    return found


def sample(per_rule: int, seed: int, languages: set[str], packages: list[str], corpus_wide: bool = False,
           unjudged: bool = False) -> None:
    """Up to `per_rule` findings of each rule in each package (over all packages together with `corpus_wide`),
    with the lines around each, for judging; only rules of `languages` and packages whose name contains one of
    `packages`, when given; `unjudged` leaves out findings verdicts.tsv already judges."""
    rng, judged = random.Random(seed), verdicts() if unjudged else {}
    pools: dict[tuple[str, str], list[tuple[Path, Finding]]] = defaultdict(list)
    for package in sorted((cache_dir() / "src").iterdir()):
        if packages and not any(p in package.name for p in packages):
            continue
        for d in _findings(package):
            rule = str(d["ruleId"])
            if (languages and rule.rsplit("-", 1)[-1] not in languages) or (
                    verdict_key(rule, _loc(package, d)) in judged):
                continue
            pools[("" if corpus_wide else package.name, rule)].append((package, d))
    for (_scope, rule), found in sorted(pools.items()):
        for package, d in rng.sample(found, min(per_rule, len(found))):
            print(f"=== {rule}\t{_loc(package, d)}\t{d['severity']}\t"
                  f"({len(found)} in {'corpus' if corpus_wide else 'package'})")
            print(_context(package, d))


def report() -> int:
    """Precision per rule, per language and overall; a false positive whose reason says "fixed in" has its
    fix landed (the row keeps its verdict), so the overall line also gives the precision with those fixed."""
    rows = [ln.split("\t") for ln in VERDICTS.read_text().splitlines()[1:] if ln.strip()]
    per: dict[str, Counter[str]] = defaultdict(Counter)
    per_lang: dict[str, Counter[str]] = defaultdict(Counter)
    for rule, lang, _loc, verdict, why in rows:
        fixed = verdict == "fp" and "fixed in" in why
        per[rule][verdict] += 1
        per[rule]["fixed"] += fixed
        per_lang[lang][verdict] += 1
        per_lang[lang]["fixed"] += fixed
    for name, c in [*sorted(per.items()), *((f"language {k}", v) for k, v in sorted(per_lang.items()))]:
        n = c["tp"] + c["ok"] + c["fp"]
        print(f"{name:<40} {n:>4} judged  tp {c['tp']:>3}  ok {c['ok']:>3}  fp {c['fp']:>3}  "
              f"precision {(c['tp'] + c['ok']) / n:.0%}" + (f"  ({c['fixed']} fp fixed since: "
              f"{(n - c['fp'] + c['fixed']) / n:.0%})" if c["fixed"] else ""))
    total = sum(per_lang.values(), Counter[str]())
    n = total["tp"] + total["ok"] + total["fp"]
    print(f"overall: {n} judged over {len(per_lang)} language(s), {total['fp']} false positive(s), "
          f"precision {(total['tp'] + total['ok']) / n:.1%}; {total['fixed']} of the false positives fixed since, "
          f"precision with them fixed {(n - total['fp'] + total['fixed']) / n:.1%}" if n else "nothing judged")
    return 0


# Where Debian installs the sources it ships; verdicts name a file by the path below these.
DEB_ROOTS = ("usr/share/gocode/src/", "usr/share/cargo/registry/", "usr/share/rubygems-integration/all/gems/",
             "usr/share/php/")
Finding = dict[str, object]


def location(package: str, file: str, line: object) -> str:
    """How verdicts.tsv names a finding: package folder, the file's path below any Debian install root, line."""
    for root in DEB_ROOTS:
        if file.startswith(root):
            file = file[len(root):]
            break
    return f"{package}/{file}:{line}"


def verdict_key(rule: str, loc: str) -> tuple[str, str, str]:
    """What joins a finding to a verdict row: rule, package (a Debian one without its version, so another
    security revision still joins) and path:line. Older rows put Go packages under `go-debian/`."""
    parts = loc.split("/")
    if parts[0] == "go-debian":
        parts = parts[1:]
    package = parts[0].split("_")[0] if "_" in parts[0] else parts[0]
    return rule, package, "/".join(parts[1:])


def verdicts(*files: Path) -> dict[tuple[str, str, str], tuple[str, str]]:
    """(rule, package, path:line) -> (verdict, reason) from the verdict files (default: verdicts.tsv)."""
    rows = [ln.split("\t") for f in files or (VERDICTS,) for ln in f.read_text().splitlines()[1:] if ln.strip()]
    return {verdict_key(rule, loc): (verdict, why) for rule, _lang, loc, verdict, why in rows}


def tree_at(rev: str | None) -> Path:
    """The source tree whose sgtools and bundled rules scan: this checkout, or a worktree of `rev` in the cache."""
    if rev is None:
        return ROOT
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", f"{rev}^{{commit}}"],
                            capture_output=True, text=True, check=True).stdout.strip()
    tree = cache_dir() / "trees" / commit[:12]
    if not tree.exists():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), commit], check=True,
                       stdout=subprocess.DEVNULL)
    return tree


def scan_corpus(tree: Path) -> list[tuple[Path, Finding]]:
    """Every finding, at every severity, of `sgtools scan` as a user runs it (bundled rules, default settings:
    excludes, test code, other linters' suppressions, generated files) over each corpus package, with the
    sgtools and rules of `tree`. Its own cache dir per tree: another version's cached analyses never leak in."""
    # openvswitch's autotest suites match more than ast-grep's default 64 MB of output before the signal pass drops
    # them as generated: the harness raises the cap rather than lose a package (a user scan says [too-large])
    env = {"SGTOOLS_ENGINE_MAX_OUTPUT": str(1 << 30), **os.environ, "PYTHONPATH": str(tree),
           "XDG_CACHE_HOME": str(cache_dir() / "xdg" / tree.name)}
    out: list[tuple[Path, Finding]] = []
    for package in sorted((cache_dir() / "src").iterdir()):
        # a past revision's findings never change: kept; this checkout's are scanned afresh every time
        kept_scan = None if tree == ROOT else cache_dir() / "scans" / tree.name / f"{package.name}.json"
        if kept_scan is not None and kept_scan.exists():
            out.extend((package, d) for d in json.loads(kept_scan.read_text()))
            continue
        run = subprocess.run([sys.executable, "-m", "sgtools", "scan", "--root", str(package), "--json",
                              "--no-progress"], capture_output=True, text=True, env=env, cwd=package)
        if run.returncode not in (0, 1):
            raise SystemExit(f"scan of {package.name} failed (exit {run.returncode}): {run.stderr[-800:]}")
        issues = json.loads(run.stdout)["issues"]
        if kept_scan is not None:
            kept_scan.parent.mkdir(parents=True, exist_ok=True)
            kept_scan.write_text(json.dumps(issues))
        out.extend((package, d) for d in issues)
    return out


def _loc(package: Path, d: Finding) -> str:
    return location(package.name, str(d["file"]), d["line"])


def _context(package: Path, d: Finding) -> str:
    # split("\n"), not splitlines(): GNU sources hold form feeds, which splitlines() counts as line ends
    lines = (package / str(d["file"])).read_text(errors="replace").split("\n")
    line = int(str(d["line"]))
    return "\n".join(f"    {t}" for t in lines[max(0, line - 4): line + 3])


def signal(n: int, seed: int, rev: str | None) -> int:
    """Findings at warning and above drawn uniformly at random from the whole corpus, as a user meets them,
    joined with the verdicts: the share worth changing (tp), fine where they stand (ok), false (fp), unjudged;
    the unjudged ones are listed with context, to judge."""
    found = [(p, d) for p, d in scan_corpus(tree_at(rev)) if d["severity"] in SEVERITIES]
    found.sort(key=lambda pd: (_loc(*pd), str(pd[1]["ruleId"])))
    drawn = random.Random(seed).sample(found, min(n, len(found)))
    judged = verdicts(VERDICTS, VERDICTS_BEFORE)
    shares = Counter[str]()
    todo = []
    for package, d in drawn:
        verdict = judged.get(verdict_key(str(d["ruleId"]), _loc(package, d)), ("unjudged", ""))[0]
        shares[verdict] += 1
        if verdict == "unjudged":
            todo.append((package, d))
    per_rule = Counter(str(d["ruleId"]) for _p, d in found)
    pooled = Counter(judged[k][0] for k in (verdict_key(str(d["ruleId"]), _loc(p, d)) for p, d in found) if k in judged)
    print(f"at {rev or 'this checkout'}: {len(found)} findings at warning and above in {len(per_rule)} rule(s); "
          f"most: {', '.join(f'{r} {c}' for r, c in per_rule.most_common(5))}")
    print(f"drawn {len(drawn)} (seed {seed}): " + ", ".join(
        f"{v} {shares[v]} ({shares[v] / max(1, len(drawn)):.0%})" for v in ("tp", "ok", "fp", "unjudged")))
    print(f"pooled over the {sum(pooled.values())} with a verdict (not a uniform sample): " + ", ".join(
        f"{v} {pooled[v]} ({pooled[v] / max(1, sum(pooled.values())):.0%})" for v in ("tp", "ok", "fp")))
    for package, d in todo:
        rule = str(d["ruleId"])  # bundled rule ids end with their language
        print(f"=== {rule}\t{rule.rsplit('-', 1)[-1]}\t{_loc(package, d)}\t{d['severity']}\t{d['message']}")
        print(_context(package, d))
    return 0


def kept(rev: str | None) -> int:
    """Every `tp` verdict rescanned: still reported at warning and above, only below (an info finding in test
    code), or lost. Exit 1 when one is lost."""
    present = {verdict_key("", f"{p.name}/x")[1] for p in (cache_dir() / "src").iterdir()}
    # the tp verdicts on packages of this cache (other corpora hold the others)
    tps = {k: why for k, (verdict, why) in verdicts().items() if verdict == "tp" and k[1] in present}
    best: dict[tuple[str, str, str], str] = {}
    for package, d in scan_corpus(tree_at(rev)):
        key = verdict_key(str(d["ruleId"]), _loc(package, d))
        if key in tps and best.get(key) not in SEVERITIES:
            best[key] = str(d["severity"])
    lost = sorted(k for k in tps if k not in best)
    below = sorted(k for k in tps if k in best and best[k] not in SEVERITIES)
    for what, keys in (("reported below warning", below), ("LOST", lost)):
        for rule, package, where in keys:
            print(f"{what}: {rule} {package}/{where} ({tps[(rule, package, where)]})")
    print(f"{len(tps)} tp verdict(s): {len(tps) - len(lost) - len(below)} at warning and above, "
          f"{len(below)} below, {len(lost)} lost")
    return 1 if lost else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    subs = parser.add_subparsers(dest="cmd", required=True)
    f = subs.add_parser("fetch")
    f.add_argument("--packages", default="", help="comma-separated: only specs that contain one")
    s = subs.add_parser("sample")
    s.add_argument("-n", type=int, default=5, help="findings per rule per package (default 5)")
    s.add_argument("--seed", type=int, default=18)
    s.add_argument("--languages", default="", help="comma-separated: only rules of these languages")
    s.add_argument("--packages", default="", help="comma-separated: only packages whose name contains one")
    s.add_argument("--corpus-wide", action="store_true", help="n per rule over all packages together")
    s.add_argument("--unjudged", action="store_true", help="leave out findings verdicts.tsv already judges")
    subs.add_parser("report")
    g = subs.add_parser("signal")
    g.add_argument("-n", type=int, default=60, help="findings to draw from the whole corpus (default 60)")
    g.add_argument("--seed", type=int, default=21)
    g.add_argument("--at", metavar="REV", help="scan with the sgtools and rules of this git revision")
    k = subs.add_parser("kept")
    k.add_argument("--at", metavar="REV", help="scan with the sgtools and rules of this git revision")
    args = parser.parse_args()
    if args.cmd == "fetch":
        wanted = list(filter(None, args.packages.split(",")))
        fetch([c for c in CORPUS if not wanted or any(w in c[1] for w in wanted)])
    elif args.cmd == "sample":
        sample(args.n, args.seed, set(filter(None, args.languages.split(","))),
               list(filter(None, args.packages.split(","))), args.corpus_wide, args.unjudged)
    elif args.cmd == "signal":
        return signal(args.n, args.seed, args.at)
    elif args.cmd == "kept":
        return kept(args.at)
    else:
        return report()
    return 0


if __name__ == "__main__":
    sys.exit(main())
