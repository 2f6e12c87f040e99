"""Profiles as data: reading, modelling, comparing and converting what the runtime writes.

Layer 1 (imports nothing from jprewrite but ``errors``): the CLI's ``report``, ``export``,
``flamegraph`` and ``diff`` commands and the test-framework plugins build on it.
"""

from .compact import write_compact
from .model import KINDS, METRICS, Frames, Profile, Tree
from .plain import from_dict, load_json, open_profile, resolve_threads
from .reader import load

__all__ = [
    "Frames",
    "KINDS",
    "METRICS",
    "Profile",
    "Tree",
    "from_dict",
    "load",
    "load_json",
    "open_profile",
    "resolve_threads",
    "write_compact",
]
