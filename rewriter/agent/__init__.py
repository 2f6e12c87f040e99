"""Load-time rewriting: the ``-javaagent`` jar (built from ``runtime-java/``) and its Python worker.

* :mod:`.build` -- compiles the runtime and the agent into one jar, cached by a digest of every
  source (Python rewriter included: the digest is also the agent's cache identity).
* :mod:`.options` -- the agent's ``key=value,...`` options, parsed the same way as in Java.
* :mod:`.protocol` -- the framed messages between the agent and the worker (``docs/agent.md``).
* :mod:`.loadtime` -- rewriting one class at a time against a growing view of the program, each
  through :class:`jprewrite.instrument.pipeline.ClassPipeline` with the load-time failure policy
  (the contract-only form, then the agent's Java contract).
* :mod:`.worker` -- ``python -m jprewrite.agent.worker``: the process the agent talks to.
"""

from .build import agent_jar, build_id
from .loadtime import LoadTimeRewriter
from .options import KEYS, AgentOptions, parse_options

__all__ = ["KEYS", "AgentOptions", "LoadTimeRewriter", "agent_jar", "build_id", "parse_options"]
