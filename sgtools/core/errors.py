"""One exception class per SPEC error code.

A message always says what went wrong and what to do next; adapters add the `[code]` prefix.
"""

from __future__ import annotations

from typing import Any, ClassVar


class SgToolsError(Exception):
    code: ClassVar[str] = "engine-failed"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def render(self) -> str:
        return f"[{self.code}] {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **self.details}


class ConfigMissing(SgToolsError):
    code = "config-missing"


class RuleInvalid(SgToolsError):
    code = "rule-invalid"


class RuleUnproven(SgToolsError):
    """A new or changed rule came with no invalid example it flags (no proof that it fires)."""
    code = "rule-unproven"


class NotFound(SgToolsError):
    code = "not-found"


class Conflict(SgToolsError):
    code = "conflict"


class OutsideWorkspace(SgToolsError):
    code = "outside-workspace"


class TooLarge(SgToolsError):
    code = "too-large"


class Timeout(SgToolsError):
    code = "timeout"


class EngineFailed(SgToolsError):
    code = "engine-failed"


class NetworkError(SgToolsError):
    code = "network"


class ReadOnly(SgToolsError):
    code = "read-only"


class BadInput(SgToolsError):
    code = "bad-input"


class IoFailure(SgToolsError):
    """A filesystem fault (read-only, full disk, no inodes, wrong file type): not a bug, the message says what
    to fix. Made from an OSError by `sgtools.core.oserrors.io_error`."""
    code = "io"
