"""Real profiles for the profile-tool tests: a small Java program, compiled, rewritten, run.

The program has what the tools must handle: recursion (inclusive values counted once per
method), overloads (short names that need their arguments), a nested class, JDK calls,
allocations, a second named thread, and a knob (``args[0]``) that makes one method do more
work, for the regression that ``jprewrite diff`` must name first.
"""

from __future__ import annotations

from pathlib import Path

from support.jdk import javac
from support.profiling import make_jar, rewrite, run_java

__all__ = ["SOURCE", "MAIN", "build_program", "profile_of"]

MAIN = "shop.Main"

SOURCE = r"""
package shop;

import java.util.ArrayList;
import java.util.List;

public class Main {
    static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

    static long work(int n) { long s = 0; for (int i = 0; i < n; i++) s += i % 7; return s; }

    static long work(long n) { long s = 0; for (long i = 0; i < n; i++) s += i % 5; return s; }

    static String text(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) sb.append(i).append(',');
        return sb.toString();
    }

    static final class Basket {
        final List<int[]> items = new ArrayList<>();
        int add(int size) { items.add(new int[size]); return items.size(); }
    }

    static long checkout(int extra) {
        // the deliberate regression: more loop iterations, here and nowhere else
        long s = 0;
        for (int i = 0; i < 200 + extra; i++) s += i * 3 % 11;
        return s;
    }

    public static void main(String[] args) throws Exception {
        int extra = args.length > 0 ? Integer.parseInt(args[0]) : 0;
        long sum = fib(12) + work(3000) + work(2000L) + text(40).length();
        Basket b = new Basket();
        for (int i = 0; i < 20; i++) sum += b.add(i);
        Thread worker = new Thread(() -> System.out.println("worker " + work(5000)), "worker");
        worker.start();
        worker.join();
        sum += checkout(extra);
        System.out.println("sum " + sum);
    }
}
"""


def build_program(work: Path) -> Path:
    """The rewritten jar (allocations counted), built once under ``work``."""
    out = work / "shop-rewritten.jar"
    if not out.exists():
        classes = javac({"shop/Main.java": SOURCE}, work / "classes")
        jar = make_jar(classes, work / "shop.jar")
        rewrite([jar], out, "--allocations")
    return out


def profile_of(work: Path, extra: int = 0, name: str | None = None) -> Path:
    """Run the rewritten program with ``extra`` and return its profile's path."""
    jar = build_program(work)
    path = work / (name or f"profile-{extra}.json")
    if not path.exists():
        r = run_java([jar], MAIN, str(extra), profile=path, jvm=())
        assert r.returncode == 0, r.stderr
        assert path.exists(), r.stderr
    return path
