"""Methods the JIT compiles in the original stay compilable once instrumented.

HotSpot never compiles a method of more than 8,000 code bytes (``HugeMethodLimit``,
``-XX:+DontCompileHugeMethods`` by default): such a method runs in the interpreter for good.
Instrumenting a method of a few thousand bytes with many short blocks (precise counting puts a
counter before every instruction that may throw) can take it past that limit; then a hot method
that the original ran compiled runs 10-50x slower (commons-math3's ``SingularValueDecomposition``
constructor made the shared ``math`` workload 7x slower than plain). Such methods are split into
outlined parts, as methods past 64 KB are, until the twin and every part are within the limit.

The generated class has such a method (static and virtual: an ESI twin) and such a constructor
(instrumented in place), which writes final fields between the regions as h2's ``Database``
constructor does: a final field's write may not move into an outlined part (the JVM allows it only
in ``<init>``; h2 failed with ``IllegalAccessError``). Checked: the split happens, every rewritten
method whose original was within the limit is within it, the output is the original's under
``-Xverify:all``, C1 and C2 compile the twins and the constructor, and the counts equal the JDI
oracle's. A method no split can help (a big ``switch`` in a ``try`` whose handler reads what every case
stores) stays whole and is reported.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from jprewrite.classfile.model import read_class
from jprewrite.instrument.parts import JIT_HUGE_METHOD_LIMIT

from support.jdk import javac
from support.oracle import diff_profiles, run_oracle
from support.profiling import make_jar, rewrite, run_java

PACKAGE = "com/example/jitlimit"
GROUPS = 60


def _groups(n: int, acc: str) -> str:
    """Short blocks: loops, branches, array accesses and calls (each may throw: precise counting
    counts before each), on locals only, so that any run of groups can be outlined."""
    return "".join(
        f"""
    for (int j = 0; j < 2; j++) {{
      if (a[(j + {i}) & 7] > {i % 50}) a[j & 7] += {i} + j; else a[(j + 1) & 7] -= j ^ {i % 13};
    }}
    {acc} += (a[{i % 8}] * {i + 1}L) ^ ({acc} >>> {1 + i % 7});
    if (({acc} & {1 + i % 5}) == 0) {{ {acc} += step(a, {i}); }} else {{ {acc} -= a[{(i + 3) % 8}] % {2 + i % 9}; }}
"""
        for i in range(n)
    )


def _source(groups: int) -> dict[str, str]:
    kernel = f"""
package com.example.jitlimit;
public class Kernel {{
  final long first;
  final int[] last;
  long spare;
  static int steps;
  static long step(int[] a, int i) {{ steps++; return (a[i & 7] * 7 + i) % 11; }}

  public static long compute(int n) {{
    int[] a = new int[8];
    for (int k = 0; k < 8; k++) a[k] = n + k;
    long x = n;
{_groups(groups, "x")}
    return x;
  }}

  public long virtualCompute(int n) {{
    int[] a = new int[8];
    for (int k = 0; k < 8; k++) a[k] = n * 3 + k;
    long y = n + spare;
{_groups(groups, "y")}
    return y;
  }}

  public Kernel(int n) {{
    int[] a = new int[8];
    for (int k = 0; k < 8; k++) a[k] = n - k;
    long z = n;
{_groups(groups // 2, "z")}
    first = z;
{_groups(groups // 2, "z")}
    spare = z;
    last = a;
  }}
}}
"""
    main = """
package com.example.jitlimit;
public class Main {
  public static void main(String[] args) {
    int rounds = Integer.parseInt(args[0]);
    long sum = 0;
    for (int r = 0; r < rounds; r++) {
      Kernel k = new Kernel(r % 97);
      sum += Kernel.compute(r % 89) + k.virtualCompute(r % 83) + k.first + k.last[r & 7];
    }
    System.out.println(sum + " " + Kernel.steps);
  }
}
"""
    return {f"{PACKAGE}/Kernel.java": kernel, f"{PACKAGE}/Main.java": main}


def _lengths(data: bytes) -> dict[str, int]:
    cf = read_class(data)
    out = {}
    for m in cf.methods:
        code = m.code()
        if code is not None:  # the largest of a name's overloads (a static method's slot twin is tiny)
            out[m.name] = max(out.get(m.name, 0), len(code.code))
    return out


@pytest.fixture(scope="module")
def kernel_jar(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("jitlimit")
    classes = javac(_source(GROUPS), tmp / "classes")
    sizes = _lengths((classes / PACKAGE / "Kernel.class").read_bytes())
    for name in ("compute", "virtualCompute", "<init>"):
        assert 4_000 < sizes[name] <= JIT_HUGE_METHOD_LIMIT, (name, sizes[name])
    return make_jar(classes, tmp / "kernel.jar")


@pytest.mark.parametrize("counting", ["default", "precise"])
def test_methods_stay_within_the_jit_limit_and_run_unchanged(kernel_jar, tmp_path, counting) -> None:
    plain = run_java([kernel_jar], "com.example.jitlimit.Main", "300")
    assert plain.returncode == 0, plain.stderr
    out = tmp_path / "out.jar"
    rewrite([kernel_jar], out, "--counting", counting)
    sizes = _lengths(zipfile.ZipFile(out).read(f"{PACKAGE}/Kernel.class"))
    over = {n: s for n, s in sizes.items() if s > JIT_HUGE_METHOD_LIMIT}
    assert not over, over
    if counting == "precise":  # whole, each of the three is past the limit: all are split
        for prefix in ("compute$jp$", "virtualCompute$jp$", "init$jp$"):
            assert any(n.startswith(prefix) for n in sizes), (prefix, sorted(sizes))
    r = run_java([out], "com.example.jitlimit.Main", "300", profile=tmp_path / "p.json")  # -Xverify:all
    assert r.returncode == 0, r.stderr
    assert r.stdout == plain.stdout


@pytest.mark.parametrize("tier", ["1", "4"])
def test_the_split_twin_is_compiled(kernel_jar, tmp_path, tier) -> None:
    """C1 (the tests' JVM) and C2 compile the hot twin and constructor (the limit is the same for both)."""
    out = tmp_path / "out.jar"
    rewrite([kernel_jar], out, "--counting", "precise")
    flags = ("-XX:+PrintCompilation", "-XX:-BackgroundCompilation", f"-XX:TieredStopAtLevel={tier}")
    r = run_java([out], "com.example.jitlimit.Main", "20000", jvm=flags, profile=tmp_path / "p.json")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    for method in ("Kernel::compute$jp (", "Kernel::virtualCompute$jp (", "Kernel::<init> ("):
        compiled = [x for x in lines if "com.example.jitlimit." + method in x and "made not entrant" not in x]
        assert any(x.split()[2 if x.split()[2].isdigit() else 3] == tier for x in compiled), (method, compiled)


def test_split_for_the_jit_counts_equal_the_oracle(kernel_jar, tmp_path) -> None:
    out = tmp_path / "out.jar"
    rewrite([kernel_jar], out, "--counting", "precise")
    r = run_java([out], "com.example.jitlimit.Main", "2", profile=tmp_path / "p.json")
    assert r.returncode == 0, r.stderr
    oracle = run_oracle([kernel_jar], "com.example.jitlimit.Main", ["2"], app_patterns=("com.example.",), timeout=600)
    assert oracle.stdout == r.stdout
    from test_cct_oracle import without_object_init

    expected = {**oracle.profile, "root": without_object_init(oracle.profile["root"])}
    differences = diff_profiles(expected, r.profile)
    assert not differences, "\n".join(differences[:40])


def test_a_method_no_split_keeps_within_the_limit_is_reported(tmp_path) -> None:
    """A ``switch`` of many one-call cases inside a ``try`` whose handler reads the local every case
    stores has no region to outline: a part cannot hand that local back when it throws
    (:mod:`jprewrite.instrument.outline_switches`), and an ordinary region is entered at its start
    only. It stays whole, runs unchanged (interpreted), and the rewrite says so."""
    cases = "".join(f"      case {i}: acc += f{i % 7}(n + {i}); break;\n" for i in range(420))
    helpers = "".join(f"  static int f{k}(int n) {{ return n * {k + 3} % 101; }}\n" for k in range(7))
    source = f"""
package com.example.jitlimit;
public class Switch {{
{helpers}
  static long dispatch(int op, int n) {{
    long acc = 0;
    try {{
      switch (op) {{
{cases}        default: acc = -1;
      }}
    }} catch (RuntimeException e) {{
      return -acc;
    }}
    return acc;
  }}
  public static void main(String[] args) {{
    long sum = 0;
    for (int i = 0; i < 2000; i++) sum += dispatch(i % 430, i);
    System.out.println(sum);
  }}
}}
"""
    classes = javac({f"{PACKAGE}/Switch.java": source}, tmp_path / "classes")
    original = _lengths((classes / PACKAGE / "Switch.class").read_bytes())["dispatch"]
    assert 4_000 < original <= JIT_HUGE_METHOD_LIMIT, original
    jar = make_jar(classes, tmp_path / "switch.jar")
    plain = run_java([jar], "com.example.jitlimit.Switch")
    out = tmp_path / "out.jar"
    r = subprocess.run(
        [sys.executable, "-m", "jprewrite.cli.main", "rewrite", str(jar), str(out), "-v"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "1 methods past the JIT's size limit once instrumented" in r.stderr, r.stderr
    assert "com.example.jitlimit.Switch.dispatch(II)J: " in r.stderr and "runs interpreted" in r.stderr, r.stderr
    assert _lengths(zipfile.ZipFile(out).read(f"{PACKAGE}/Switch.class"))["dispatch$jp"] > JIT_HUGE_METHOD_LIMIT
    rewritten = run_java([out], "com.example.jitlimit.Switch", profile=tmp_path / "p.json")
    assert rewritten.returncode == 0, rewritten.stderr
    assert rewritten.stdout == plain.stdout
