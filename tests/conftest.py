import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import os  # noqa: E402

# Every rewrite in the tests passes the verification gate (jprewrite's own verifier), offline and in
# the agent's worker (which inherits the environment): off by default for users because of its cost.
os.environ.setdefault("JPREWRITE_VERIFY", "1")
