import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

# The verification gate (jprewrite's own verifier on every rewritten method, JPREWRITE_VERIFY=1) is
# off here as for users: HotSpot verifies what the tests run (-Xverify:all), and the gate would keep
# a broken method as it was, hiding the fault from those checks. It more than doubles the rewriting's
# CPU time (measured on the six workloads' jars: 84 s against 38 s). The corpus tests turn it on, to
# check that it rejects nothing HotSpot accepts (test_corpus_compilers.py); test_verification_gate.py
# tests it.

import pytest  # noqa: E402

from support.workloads import build_bench  # noqa: E402


@pytest.fixture(scope="session")
def bench(tmp_path_factory) -> Path:
    """The shared workload scripts (``../shared/bench``), copied and built once per test process."""
    built = build_bench(tmp_path_factory.mktemp("bench") / "bench")
    if isinstance(built, str):
        pytest.skip(built)
    return built
