"""``jprewrite report profile.json``: the hottest calling contexts as an indented tree.

Each line shows a context's inclusive and exclusive bytecodes (or calls,
when the profile counted no bytecodes), its calls and the method. Children
below ``--min-percent`` of the total and beyond ``--top`` per parent are
folded into one "... N more" line, so a big profile stays readable.
"""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import JprewriteError


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="print the top contexts of a profile as a tree",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("profile", metavar="PROFILE", help="profile JSON written by a rewritten program")
    p.add_argument("--thread", metavar="NAME", help="one thread's tree instead of the merged one")
    p.add_argument("--top", type=int, default=10, help="children shown per context (default 10)")
    p.add_argument("--min-percent", type=float, default=0.5,
                   help="hide contexts below this share of the total (default 0.5)")
    p.add_argument("--depth", type=int, default=40, help="deepest level printed (default 40)")
    p.set_defaults(run=run)


def load_profile(path: str) -> dict:
    """Read a profile; deep recursion in the program makes deeply nested JSON, so the limit is raised."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 200_000))
    try:
        with open(path, "rb") as f:
            data = json.load(f)
    except OSError as e:
        raise JprewriteError(f"cannot read: {e.strerror or e}", path=path) from None
    except (ValueError, UnicodeDecodeError) as e:
        raise JprewriteError(f"not a JSON profile: {e}", path=path) from None
    finally:
        sys.setrecursionlimit(limit)
    if not isinstance(data, dict) or not isinstance(data.get("root"), dict):
        raise JprewriteError("not a jprewrite profile (no 'root' object)", path=path)
    return data


def inclusive(node: dict, key: str) -> int:
    """Sum of ``key`` over the subtree (iterative: profiles of deep recursions are deep)."""
    total = 0
    stack = [node]
    while stack:
        n = stack.pop()
        total += int(n.get(key, 0))
        stack.extend(n.get("children", ()))
    return total


def run(args: argparse.Namespace) -> int:
    data = load_profile(args.profile)
    root = data["root"]
    if args.thread is not None:
        matches = [t["root"] for t in data.get("threads", []) if t.get("name") == args.thread]
        if not matches:
            names = ", ".join(sorted({str(t.get('name')) for t in data.get('threads', [])}))
            raise JprewriteError(f"no thread named {args.thread!r} (threads: {names})", path=args.profile)
        root = matches[0]
    key = "bytecodes" if inclusive(root, "bytecodes") else "calls"
    totals: dict[int, int] = {}

    def incl(n: dict) -> int:
        v = totals.get(id(n))
        if v is None:
            v = totals[id(n)] = inclusive(n, key)
        return v

    grand = incl(root) or 1
    out = sys.stdout
    out.write(f"{'inclusive':>14} {'exclusive':>14} {'calls':>10}  context ({key})\n")
    threshold = grand * args.min_percent / 100.0
    stack: list[tuple[dict | None, int, int]] = [(root, 0, 0)]
    while stack:
        n, depth, hidden = stack.pop()
        if n is None:
            out.write(f"{'':>14} {'':>14} {'':>10}  {'  ' * depth}... {hidden} more\n")
            continue
        method = n.get("method", "?")
        kind = f" [{n['kind']}]" if n.get("kind") else ""
        pct = 100.0 * incl(n) / grand
        out.write(f"{incl(n):>14,} {int(n.get(key, 0)):>14,} {int(n.get('calls', 0)):>10,}  "
                  f"{'  ' * depth}{method}{kind} ({pct:.1f}%)\n")
        if depth >= args.depth:
            continue
        children = sorted(n.get("children", ()), key=lambda c: (-incl(c), c.get("method", "")))
        shown = [c for c in children[:args.top] if incl(c) >= threshold]
        rest = len(children) - len(shown)
        if rest:
            stack.append((None, depth + 1, rest))
        for c in reversed(shown):
            stack.append((c, depth + 1, 0))
    return 0
