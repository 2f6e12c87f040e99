import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import os  # noqa: E402

# Every rewrite in the tests passes the verification gate (jprewrite's own verifier), offline and in
# the agent's worker (which inherits the environment): off by default for users because of its cost.
os.environ.setdefault("JPREWRITE_VERIFY", "1")


import pytest  # noqa: E402

from support.workloads import build_bench  # noqa: E402


@pytest.fixture(scope="session")
def bench(tmp_path_factory) -> Path:
    """The shared workload scripts (``../shared/bench``), copied and built once per test process."""
    built = build_bench(tmp_path_factory.mktemp("bench") / "bench")
    if isinstance(built, str):
        pytest.skip(built)
    return built
