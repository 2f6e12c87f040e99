"""The agent's options: ``key=value`` pairs separated by ``,``, lists separated by ``:`` (JaCoCo style).

The Java agent validates them at start-up (``AgentOptions.java``, one line and exit 2 on a
mistake); the worker receives the same string and reads the keys that change the rewriting.
Both follow ``docs/agent.md``; :data:`KEYS` is the list both know.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import JprewriteError
from ..instrument import COUNTING_MODES, InstrumentOptions, instrument_options

KEYS = (
    "output",
    "collapsed",
    "includes",
    "excludes",
    "counting",
    "allocations",
    "weights",
    "activation",
    "cache",
    "python",
    "worker",
    "progress",
    "timeout",
    "verify",
    "mode",
    "interval",
    "sampler",
    "sample-threads",
    "sample-waiting",
    "append",
    "threads",
)
_BOOLEANS = ("allocations", "activation", "progress", "verify", "sample-waiting", "append")
THREADS = ("all", "merged-only", "none")
MODES = ("exact", "sample", "hybrid")
SAMPLERS = ("safepoint", "partial", "incremental")
_INTERVAL = re.compile(r"([0-9]{1,12}(?:\.[0-9]{1,9})?)(ms|us)")


def interval_ns(text: str) -> int | None:
    """Nanoseconds of ``10ms`` / ``0.5ms`` / ``100us`` (10us..60000ms), else None.

    The same rule as the agent's ``AgentOptions.intervalNanos`` and the runtime's
    ``SamplingConfig.parseInterval``: a run sampled at another rate than asked is a wrong run.
    """
    m = _INTERVAL.fullmatch(text)
    if not m:
        return None
    number, unit = m.groups()
    whole, _, frac = number.partition(".")
    scale = 1_000_000 if unit == "ms" else 1_000
    ns = int(whole) * scale + (int(frac) * scale // 10 ** len(frac) if frac else 0)
    return ns if 10_000 <= ns <= 60_000_000_000 else None


def _attr(key: str) -> str:
    return key.replace("-", "_")


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
    verify: bool | None = None  #: the verification gate; None: JPREWRITE_VERIFY, else off
    mode: str = "exact"  #: exact, sample (yieldpoints only) or hybrid (exact tree + samples)
    interval: str | None = None  #: sampling interval as given (``10ms``, ``100us``); None: 10ms
    sampler: str | None = None  #: safepoint, partial or incremental; None: incremental
    sample_threads: int | None = None  #: tickets per round; None: available processors
    sample_waiting: bool | None = None  #: also sample blocked/waiting threads; None: false
    append: bool = False  #: add this run's profile to the one in ``output`` (under a file lock)
    threads: str | None = None  #: per-thread trees: all, merged-only or none; None: all

    def rewrites(self) -> bool:
        """Whether classes are rewritten at all (sample mode's safepoint sampler needs no rewriting)."""
        return not (self.mode == "sample" and self.sampler == "safepoint")

    def instrument_options(self) -> InstrumentOptions:
        """What the rewriting adds, from the keys that change it (reads the weights file)."""
        return instrument_options(
            counting=self.counting,
            allocations=self.allocations,
            weights=self.weights,
            activation=self.activation,
            mode=self.mode,
        )

    def to_string(self) -> str:
        """The option string for ``-javaagent:jar=<this>`` (only what differs from the defaults)."""
        parts = []
        default = AgentOptions()
        for key in KEYS:
            value = getattr(self, _attr(key))
            if value == getattr(default, _attr(key)):
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
            setattr(opts, _attr(key), value == "true")
        elif key in ("mode", "sampler"):
            allowed = MODES if key == "mode" else SAMPLERS
            if value not in allowed:
                raise JprewriteError(f"agent option {key}={value!r}: expected one of {', '.join(allowed)}")
            setattr(opts, key, value)
        elif key == "threads":
            if value not in THREADS:
                raise JprewriteError(f"agent option threads={value!r}: expected one of {', '.join(THREADS)}")
            opts.threads = value
        elif key == "interval":
            if interval_ns(value) is None:
                raise JprewriteError(
                    f"agent option interval={value!r}: expected a time with a unit, ms or us, "
                    "from 10us to 60000ms (e.g. 10ms, 0.5ms, 100us)"
                )
            opts.interval = value
        elif key == "sample-threads":
            if not re.fullmatch(r"[0-9]{1,5}", value) or not 1 <= int(value) <= 4096:
                raise JprewriteError(f"agent option sample-threads={value!r}: expected a whole number from 1 to 4096")
            opts.sample_threads = int(value)
        elif key == "timeout":
            if not value.isdigit() or int(value) <= 0:
                raise JprewriteError(f"agent option timeout={value!r}: expected a positive number of seconds")
            opts.timeout = int(value)
        else:
            setattr(opts, key, value)
    return opts
