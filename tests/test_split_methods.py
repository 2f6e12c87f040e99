"""Methods near 64 KB are split into outlined parts and counted exactly (against the JDI oracle).

The bigmethod sample (straight-line, 65,530 bytes) is compared in test_cct_oracle.py. Here a
generated method just under the limit has what splitting must respect: loops, branches and
switches that stay inside a region or leave it only to its end, try/catch inside regions and
around them (a handler that covers a region must not read a local the region stores: it
would see the value from before the region), call sites (numbered in code order across the
parts), long/double/reference locals live across regions, locals that hold null, several
locals stored in one region, and exceptions thrown out of an outlined part into a handler
that covers it. The same body also runs as a static initialiser and as a constructor, which
are instrumented in place (OSI) and split in place.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from jprewrite.classfile.model import read_class

from support.jdk import javac
from support.oracle import diff_profiles, run_oracle
from support.profiling import make_jar, rewrite, run_java

PACKAGE = "com/example/split"
TARGET = 63_000  # code bytes of Big.big: past what fits once instrumented, under 65,535


def _group(i: int) -> str:
    # Straight-line arithmetic on locals (nothing that can throw or call, so no block ends) fills
    # the 64 KB with fewer groups: the oracle's cost is events times live breakpoints (JDWP checks
    # each breakpoint request on every event), both proportional to the groups; 312 groups took
    # the oracle 66 s, 155 take 20 s.
    return f"""
    acc += (acc ^ {i}) * 31 + t.length();
    acc = acc * 6364136223846793005L + (i0 ^ {i}) - ((long) i1 << {i % 13}) + (i2 >>> {1 + i % 5}) + (i3 | {i});
    acc ^= (acc >>> 17) + (acc << {1 + i % 9}) - ({i} * (long) i0) + (i3 ^ i4) * {3 + i % 17} + (i4 & {i % 255});
    acc += ((acc & 0xffff) * {7 + i % 23}) ^ ((long) i2 * i3 - {i} * (long) i4) + (acc >> {2 + i % 11});
    acc -= ((acc << 3) ^ (acc >>> {5 + i % 7})) + ((long) (i0 + {i}) * (i1 - {i % 19})) + ((i2 & i3) | (i4 ^ {i}));
    acc = (acc ^ (acc >>> 29)) * {1 + 2 * i} + ((long) i3 << 7) - ((long) i4 >>> {1 + i % 3}) + (i0 * {i % 97});
    acc += ((acc | {i}) & (acc >> 3)) - ((long) i1 * {11 + i % 29}) + ((acc << 11) ^ (i2 * (long) {i}));
    if ((acc & {1 + i % 7}) == 0) {{ d += {i}; o = null; }} else {{ t = (i{i % 5} > 0) ? t : "s{i % 9}"; o = t; }}
    for (int j = 0; j < 3; j++) {{ arr[j & 3] += j + {i}; }}
    try {{
      if (arr[{i % 4}] % 13 == {i % 13}) throw new IllegalStateException("g{i}");
      acc += helper({i}, d);
    }} catch (IllegalStateException e) {{ acc -= e.getMessage().length(); }}
    switch ((int) (acc & 3)) {{ case 0: acc += 1; break; case 1: f += 0.25f; break; default: acc += {i % 11}; }}
    check(n, {i});
"""


def _body(groups: int, result: str) -> str:
    """Statements of a method near 64 KB that end by assigning its result to ``result``."""
    body = "".join(_group(i) for i in range(groups))
    return f"""
    long acc = n; double d = 0.5; float f = 1f; String t = s; Object o = null; int[] arr = new int[4];
    int i0 = n, i1 = n + 1, i2 = n - 1, i3 = 2 * n, i4 = -n;
    try {{
      for (int k = 0; k < 2; k++) {{
        d += k;
        fail(acc + k);
      }}
    }} catch (ArithmeticException e) {{ acc += 1000; }}
    try {{
{body}
    }} catch (ArithmeticException e) {{ throw new IllegalStateException("late: " + e.getMessage(), e); }}
    {result} = acc + "/" + d + "/" + f + "/" + t + "/" + (o == null) + "/" + arr[0] + arr[1] + arr[2] + arr[3];
"""


def _source(groups: int) -> dict[str, str]:
    big = f"""
package com.example.split;
public class Big {{
  static int calls;
  static long helper(int i, double d) {{ calls++; return (long) (i * 3 + d) % 17; }}
  static void fail(long acc) {{ if (acc % 5 == 3) throw new ArithmeticException("early"); }}
  static void check(int n, int i) {{ if (n == 7 && i == 100) throw new ArithmeticException("at " + i); }}
  public static String big(int n, String s) {{
    String r;
{_body(groups, "r")}
    return r;
  }}
  // an overload whose parts have the same descriptors as big(int, String)'s: names must differ
  public static String big(String s, int n) {{
    String r;
{_body(groups, "r")}
    return r + "!";
  }}
}}
"""
    # the same body as a static initialiser and as a constructor (OSI methods, split in place)
    init = f"""
package com.example.split;
public class Init {{
  static final String STATIC;
  final String value;
  static long helper(int i, double d) {{ return Big.helper(i, d); }}
  static void fail(long acc) {{ Big.fail(acc); }}
  static void check(int n, int i) {{ Big.check(n, i); }}
  static {{
    int n = 5; String s = "init"; String r;
{_body(groups, "r")}
    STATIC = r;
  }}
  Init(int n, String s) {{
    super();
{_body(groups, "value")}
  }}
}}
"""
    main = """
package com.example.split;
public class Main {
  public static void main(String[] args) {
    System.out.println(Big.big(3, "abc"));
    System.out.println(Big.big("uv", 2));
    try {
      System.out.println(Big.big(7, "q"));
    } catch (IllegalStateException e) {
      System.out.println(e.getMessage());
    }
    System.out.println(Init.STATIC);
    System.out.println(new Init(4, "ctor").value);
    try {
      System.out.println(new Init(7, "ctor").value);
    } catch (IllegalStateException e) {
      System.out.println(e.getMessage());
    }
    System.out.println(Big.calls);
  }
}
"""
    return {f"{PACKAGE}/Big.java": big, f"{PACKAGE}/Init.java": init, f"{PACKAGE}/Main.java": main}


def _code_length(classes: Path) -> int:
    cf = read_class((classes / PACKAGE / "Big.class").read_bytes())
    code = cf.method("big", "(ILjava/lang/String;)Ljava/lang/String;").code()
    return len(code.code_bytes())


@pytest.fixture(scope="module")
def big_jar(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("split")
    few = _code_length(javac(_source(20), tmp / "few"))
    more = _code_length(javac(_source(60), tmp / "more"))
    groups = 20 + (TARGET - few) * 40 // (more - few)
    while True:  # groups of higher numbers take a few bytes more: step down until javac accepts it
        try:
            classes = javac(_source(groups), tmp / f"classes{groups}")
        except subprocess.CalledProcessError:
            groups -= max(1, groups // 50)
            continue
        break
    size = _code_length(classes)
    assert 60_000 < size <= 65_535, size
    return make_jar(classes, tmp / "big.jar")


@pytest.mark.parametrize("counting", ["none", "default"])
def test_split_method_runs_unchanged(big_jar, tmp_path, counting) -> None:
    plain = run_java([big_jar], "com.example.split.Main")
    assert plain.returncode == 0, plain.stderr
    out = tmp_path / "out.jar"
    rewrite([big_jar], out, "--counting", counting, "--allocations")
    r = run_java([out], "com.example.split.Main", profile=tmp_path / "p.json")
    assert r.returncode == 0, r.stderr
    assert r.stdout == plain.stdout
    cf = read_class(__import__("zipfile").ZipFile(out).read(f"{PACKAGE}/Big.class"))
    parts = [m.name for m in cf.methods if m.name.startswith("big$jp$")]
    assert parts, "the method was not split"
    init = read_class(__import__("zipfile").ZipFile(out).read(f"{PACKAGE}/Init.class"))
    names = [m.name for m in init.methods]
    assert any(n.startswith("clinit$jp$") for n in names) and any(n.startswith("init$jp$") for n in names)


def test_split_method_counts_equal_the_oracle(big_jar, tmp_path) -> None:
    out = tmp_path / "out.jar"
    rewrite([big_jar], out, "--counting", "precise")
    r = run_java([out], "com.example.split.Main", profile=tmp_path / "p.json")
    assert r.returncode == 0, r.stderr
    oracle = run_oracle([big_jar], "com.example.split.Main", app_patterns=("com.example.",), timeout=600)
    assert oracle.stdout == r.stdout
    from test_cct_oracle import without_object_init

    expected = {**oracle.profile, "root": without_object_init(oracle.profile["root"])}
    differences = diff_profiles(expected, r.profile)
    assert not differences, "\n".join(differences[:40])


def test_clojure_load_keeps_its_forms_values_on_the_stack_and_is_split(tmp_path) -> None:
    """Clojure's compiled ``core__init.load()`` (ASM output, ~64 KB) leaves every top-level form's value
    on the operand stack (max_stack 887) and never empties it, so no region starts and ends on an
    empty stack: regions keep the values below their own where they are and hand back the ones they
    push (an Object[]). In precise mode the method is split, verified, and counted."""
    from support.corpus import package_jars

    jars = package_jars("libclojure-java")
    out = tmp_path / "out"
    rewrite(jars, out, "--counting", "precise", "--includes", "clojure.core__init", output_dir=True)
    rewritten = [out / j.name for j in jars]
    init = read_class(__import__("zipfile").ZipFile(out / jars[0].name).read("clojure/core__init.class"))
    assert sum(1 for m in init.methods if m.name.startswith("load$jp$")) >= 2
    script = "(println (reduce + (range 100)))"
    plain = run_java(jars, "clojure.main", "-e", script)
    r = run_java(rewritten, "clojure.main", "-e", script, profile=tmp_path / "p.json")
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout == plain.stdout == "4950\n"
    loads = []
    stack = [r.profile["root"]]
    while stack:
        n = stack.pop()
        if n["method"] == "clojure.core__init.load()V":
            loads.append(n)
        stack.extend(n.get("children", ()))
    assert loads and all(n["bytecodes"] > 10_000 and "counted" not in n for n in loads), loads
