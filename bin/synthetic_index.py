"""A synthetic community index of any size, for the search benchmark (bin/bench B3) and the search scale test.

Plausible ids, messages, descriptions and tags over 12 languages; fake paths and digests (nothing is imported).
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

_TOPICS = [
    ("sql-injection", "SQL injection through string formatting of a query", ["security", "cwe-89", "injection"]),
    ("hardcoded-password", "A password or secret is hard-coded in the source", ["security", "cwe-798", "secrets"]),
    ("weak-hash", "Weak hash algorithm such as MD5 or SHA1 used for security", ["security", "cwe-327", "crypto"]),
    ("command-injection", "A shell command built from user input", ["security", "cwe-78", "injection"]),
    ("xss", "Unescaped user input written into HTML (cross site scripting)", ["security", "cwe-79", "xss"]),
    ("insecure-random", "Non-cryptographic random number generator used for tokens", ["security", "cwe-330"]),
    ("debug-enabled", "Debug mode enabled in production configuration", ["security", "cwe-489", "config"]),
    ("no-print", "Leftover print or console logging statement", ["style", "logging"]),
    ("unused-variable", "A variable is assigned but never used", ["correctness", "cleanup"]),
    ("deprecated-api", "Call to a deprecated API that will be removed", ["maintainability", "deprecated"]),
    ("tls-verify-off", "TLS certificate verification is disabled", ["security", "cwe-295", "tls"]),
    ("path-traversal", "File path built from user input without normalisation", ["security", "cwe-22"]),
]
_LANGS = ["python", "javascript", "typescript", "go", "java", "rust", "ruby", "php", "csharp", "kotlin", "c", "cpp"]
_FILLER_TEXT = ("code review rule detects pattern unsafe call argument function method module library framework "
                "request response handler user input data value config file network server client token session")


def synthetic_index(n: int, seed: int = 0) -> dict[str, Any]:
    """An index v1 document with `n` plausible rules (fake paths and digests), for benchmarks and scale tests."""
    rnd = random.Random(seed)
    rules = []
    for i in range(n):
        slug, text, tags = _TOPICS[i % len(_TOPICS)]
        lang = _LANGS[(i // len(_TOPICS)) % len(_LANGS)]
        rid = f"{slug}-{i}-{lang}"
        filler = _FILLER_TEXT.split()
        extra = " ".join(rnd.choice(filler) for _ in range(rnd.randint(5, 25)))
        rules.append({
            "id": rid, "language": lang, "severity": rnd.choice(["error", "warning", "info", "hint"]),
            "message": f"{text}.", "description": f"{text}; {extra}.", "tags": [*tags, lang],
            "path": f"rules/{lang}/{rid}.yml", "tests": f"rule-tests/{rid}-test.yml",
            "sha256": hashlib.sha256(rid.encode()).hexdigest(), "hasFix": i % 3 == 0,
            "license": "MIT", "source": "synthetic",
        })
    return {"version": 1, "name": "synthetic", "astGrep": ">=0.51", "rules": rules}
