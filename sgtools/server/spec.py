"""What a tool is to the adapter: its call over the services, its text rendering, and its MCP annotations."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mcp_types import ToolAnnotations

from sgtools.core.settings import Settings
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace


@dataclass(frozen=True)
class App:
    """What every call needs: the workspace, the engine handle, the limits and the mode."""

    ws: Workspace
    engine: Engine
    settings: Settings
    read_only: bool = False


# A call gets arguments already checked against the tool's input schema and returns the service's result.
Call = Callable[[App, Any], Mapping[str, Any]]
Render = Callable[[Any], str]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    call: Call
    render: Render
    read_only: bool = True  # never writes
    destructive: bool = False
    idempotent: bool = True
    open_world: bool = False
    write_only: bool = False  # does nothing but write: hidden in read-only mode
    writes_when_applied: bool = False  # writes only when called with apply=true

    def annotations(self, read_only_mode: bool) -> ToolAnnotations:
        # In read-only mode an apply=true call is refused, so such a tool truly only reads.
        reads_only = self.read_only or (read_only_mode and self.writes_when_applied)
        return ToolAnnotations(  # no title: the tool's own `title` says it once
            read_only_hint=reads_only,
            destructive_hint=False if reads_only else self.destructive,
            idempotent_hint=True if reads_only else self.idempotent,
            open_world_hint=self.open_world,
        )
