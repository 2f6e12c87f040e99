"""The agent's options: ``key=value`` pairs separated by ``,``, lists separated by ``:`` (JaCoCo style).

The Java agent validates them at start-up (``AgentOptions.java``, one line and exit 2 on a
mistake); the worker receives the same string and reads the keys that change the rewriting.
Both follow ``docs/agent.md``; :data:`KEYS` is the list both know.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import JprewriteError
from ..instrument.options import COUNTING_MODES

KEYS = ("output", "collapsed", "includes", "excludes", "counting", "allocations", "weights", "activation",
        "cache", "python", "worker", "progress", "timeout", "verify")
_BOOLEANS = ("allocations", "activation", "progress", "verify")


@dataclass
class AgentOptions:
    output: str | None = None
    collapsed: str | None = None
    includes: list[str] = field(default_factory=list)
    excludes: list[str] = field(default_factory=list)
    counting: str = "default"
    allocations: bool = False
    weights: str | None = None
    activation: bool = False
    cache: str | None = None
    python: str | None = None
    worker: str | None = None
    progress: bool = True
    timeout: int = 120
    verify: bool | None = None   #: the verification gate; None: JPREWRITE_VERIFY, else off

    def to_string(self) -> str:
        """The option string for ``-javaagent:jar=<this>`` (only what differs from the defaults)."""
        parts = []
        default = AgentOptions()
        for key in KEYS:
            value = getattr(self, key)
            if value == getattr(default, key):
                continue
            if isinstance(value, bool):
                value = "true" if value else "false"
            elif isinstance(value, list):
                value = ":".join(value)
            text = str(value)
            if "," in text:
                raise JprewriteError(f"agent option {key}={text!r} may not contain ','")
            parts.append(f"{key}={text}")
        return ",".join(parts)


def parse_options(text: str | None) -> AgentOptions:
    """Parse an option string; :class:`JprewriteError` (one line) for an unknown key or a bad value."""
    opts = AgentOptions()
    if not text:
        return opts
    for part in text.split(","):
        if not part:
            continue
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq:
            raise JprewriteError(f"agent option {part!r} is not key=value (known options: {', '.join(KEYS)})")
        if key not in KEYS:
            raise JprewriteError(f"unknown agent option {key!r} (known options: {', '.join(KEYS)})")
        if key in ("includes", "excludes"):
            setattr(opts, key, [p for p in value.split(":") if p])
        elif key == "counting":
            if value not in COUNTING_MODES:
                raise JprewriteError(f"agent option counting={value!r}: expected one of {', '.join(COUNTING_MODES)}")
            opts.counting = value
        elif key in _BOOLEANS:
            if value not in ("true", "false"):
                raise JprewriteError(f"agent option {key}={value!r}: expected true or false")
            setattr(opts, key, value == "true")
        elif key == "timeout":
            if not value.isdigit() or int(value) <= 0:
                raise JprewriteError(f"agent option timeout={value!r}: expected a positive number of seconds")
            opts.timeout = int(value)
        else:
            setattr(opts, key, value)
    return opts
