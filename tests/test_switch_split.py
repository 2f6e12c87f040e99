"""Big switches of small cases split into parts, each with a switch of its own, to stay JIT-compilable.

A method that is mostly a ``switch`` (a parser's reduce actions, an interpreter's loop: ecj's
``Parser.consumeRule``, rhino's ``Interpreter.interpretLoop``) has no ordinary region to outline:
each case is entered from the switch and leaves by a jump. Instrumented whole, such a method
passes HotSpot's 8,000-byte ``HugeMethodLimit`` and runs interpreted for good. Runs of its cases
are outlined instead (:mod:`jprewrite.instrument.outline_switches`).

The generated class is an interpreter loop with what such code has: ``break`` and ``continue``
(exits forward and back), a labelled break out of the loop, a case falling into the next, cases
that store ints, longs, doubles, strings and nulls, cases that return (longs, ints boxed or not,
objects and nulls), a local every case assigns and nothing reads after the switch, a nested switch, a sparse ``lookupswitch``, a
``switch`` on strings, a case that throws into a handler covering the whole loop, and a
constructor (instrumented in place) with its own switch before a final field's write. Checked: the
rewrite splits every such method within the limit and reports none, the output is the original's
under ``-Xverify:all`` with default and precise counting, C1 and C2 compile them, and the counts equal the
JDI oracle's.
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
from support.profiling import make_jar, run_java

PACKAGE = "com/example/switches"
MAIN = "com.example.switches.Main"
CASES = 400


def _source() -> dict[str, str]:
    helpers = "".join(f"  static int f{k}(int n) {{ return n * {k + 3} % 101; }}\n" for k in range(7))
    generated = "".join(f"          case {20 + i}: acc += f{i % 7}(n + {i}); break;\n" for i in range(CASES))
    ctor_cases = "".join(f"        case {i}: t += f{i % 7}(c + {i}) ^ {i}; break;\n" for i in range(CASES // 2))
    sparse = "".join(f"      case {i * 37 + 5}: r = f{i % 7}(k) + {i}; q = {i}; break;\n" for i in range(CASES // 2))
    words = "".join(
        f"      case {i}: return {'null' if i % 50 == 7 else ('k + ' + str(i) + ' > 9 ? w + ' + str(i) + ' : null') if i % 3 else 'f' + str(i % 7) + '(k)'};\n"
        for i in range(CASES // 2)
    )
    names = "".join(f'      case "w{i}": r += f{i % 7}(r) + {i}; break;\n' for i in range(CASES // 3))
    interp = f"""
package com.example.switches;
public class Interp {{
{helpers}
  final long total;
  long extra;

  static long run(int[] code, int n) {{
    long acc = 0;
    int sp = 0;
    int pc = 0;
    double d = 0.5;
    String s = "x";
    Object o = null;
    int[] stack = new int[64];
    try {{
      loop:
      while (pc < code.length) {{
        int op = code[pc++];
        switch (op) {{
          case 0: acc += f0(n); break;
          case 1: stack[sp & 63] = n; sp++; continue;
          case 2: d = d * 1.5 + f1(sp); break;
          case 3: s = s.length() > 5 ? "y" : s + "z"; break;
          case 4: if (acc > 100000) break loop; acc++; break;
          case 5: acc += 7;
          case 6: acc ^= f2(pc); break;
          case 7: o = (acc & 1) == 0 ? null : s; break;
          case 8: if (sp > 0) sp--; else acc -= 3; break;
          case 9: acc += 10 / (n - n); break;
          case 10:
            switch ((int) (acc & 3)) {{
              case 0: acc += f3(1); break;
              case 1: acc -= f4(2); continue;
              default: d += 1;
            }}
            break;
          case 11: {{ long t = acc * 31; acc = t ^ (t >>> 7); }} break;
          case 12: if (sp > 40) return acc - sp; break;
          case 13: if (o != null && acc < 0) return 7; break;
{generated}          default: acc = -acc;
        }}
        acc += sp;
      }}
    }} catch (ArithmeticException e) {{
      return -pc;
    }}
    return acc + sp + (long) d + s.length() + (o == null ? 0 : 1) + stack[3];
  }}

  static int sparse(int k) {{
    int r = -1;
    int q;  // assigned in every case, never read: the frame after the switch has it, nothing reads it
    switch (k) {{
{sparse}      default: r = k; q = 0;
    }}
    return r;
  }}

  static Object word(int k, String w) {{
    switch (k) {{
{words}      default: return w;
    }}
  }}

  static int named(String name, int r) {{
    switch (name) {{
{names}      default: r = -r;
    }}
    return r;
  }}

  public Interp(int[] code) {{
    long t = 0;
    for (int c : code) {{
      switch (c % {CASES // 2 + 10}) {{
{ctor_cases}        default: t -= c;
      }}
    }}
    total = t;
    extra = t & 255;
  }}
}}
"""
    main = """
package com.example.switches;
public class Main {
  public static void main(String[] args) {
    int rounds = Integer.parseInt(args[0]);
    long sum = 0;
    for (int r = 0; r < rounds; r++) {
      int[] code = new int[64];
      for (int i = 0; i < code.length; i++) code[i] = (i * 7 + r * 13) % 430;
      sum += Interp.run(code, r % 89) + Interp.sparse((r * 37) % 8000 + 5) + Interp.named("w" + (r % 150), r);
      Object w = Interp.word(r % 210, "w" + r);
      sum += w == null ? -1 : w.hashCode();
      sum += new Interp(code).total;
    }
    System.out.println(sum);
  }
}
"""
    return {f"{PACKAGE}/Interp.java": interp, f"{PACKAGE}/Main.java": main}


def _lengths(data: bytes) -> dict[str, int]:
    out: dict[str, int] = {}
    for m in read_class(data).methods:
        code = m.code()
        if code is not None:
            out[m.name] = max(out.get(m.name, 0), len(code.code))
    return out


@pytest.fixture(scope="module")
def switch_jar(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("switches")
    classes = javac(_source(), tmp / "classes")
    sizes = _lengths((classes / PACKAGE / "Interp.class").read_bytes())
    for name in ("run", "sparse", "named", "word", "<init>"):
        assert 2_500 < sizes[name] <= JIT_HUGE_METHOD_LIMIT, (name, sizes[name])
    return make_jar(classes, tmp / "switches.jar")


def _rewrite(jar: Path, out: Path, counting: str) -> str:
    r = subprocess.run(
        [sys.executable, "-m", "jprewrite.cli.main", "rewrite", str(jar), str(out), "--counting", counting, "-v"],
        capture_output=True,
        text=True,
        check=True,
    )
    return r.stderr


@pytest.mark.parametrize("counting", ["default", "precise"])
def test_switches_are_split_within_the_limit_and_run_unchanged(switch_jar, tmp_path, counting) -> None:
    plain = run_java([switch_jar], MAIN, "200")
    assert plain.returncode == 0, plain.stderr
    out = tmp_path / "out.jar"
    log = _rewrite(switch_jar, out, counting)
    assert "past the JIT's size limit" not in log, log
    sizes = _lengths(zipfile.ZipFile(out).read(f"{PACKAGE}/Interp.class"))
    over = {n: s for n, s in sizes.items() if s > JIT_HUGE_METHOD_LIMIT}
    assert not over, over
    for prefix in ("run$jp$", "init$jp$"):
        assert any(n.startswith(prefix) for n in sizes), (prefix, sorted(sizes))
    r = run_java([out], MAIN, "200", profile=tmp_path / "p.json")  # -Xverify:all
    assert r.returncode == 0, r.stderr
    assert r.stdout == plain.stdout


@pytest.mark.parametrize("tier", ["1", "4"])
def test_split_switches_are_compiled(switch_jar, tmp_path, tier) -> None:
    """C1 (the tests' JVM) and C2 compile the split methods (the limit is the same for both)."""
    out = tmp_path / "out.jar"
    _rewrite(switch_jar, out, "default")
    flags = ("-XX:+PrintCompilation", "-XX:-BackgroundCompilation", f"-XX:TieredStopAtLevel={tier}")
    r = run_java([out], MAIN, "20000", jvm=flags, profile=tmp_path / "p.json")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    for method in (
        "Interp::run$jp (",
        "Interp::<init> (",
        "Interp::sparse$jp (",
        "Interp::named$jp (",
        "Interp::word$jp (",
    ):
        compiled = [x for x in lines if "com.example.switches." + method in x and "made not entrant" not in x]
        assert any(x.split()[2 if x.split()[2].isdigit() else 3] == tier for x in compiled), (method, compiled)


@pytest.mark.parametrize(("counting", "rounds"), [("default", "2"), ("precise", "3")])
def test_split_switches_count_as_the_oracle(switch_jar, tmp_path, counting, rounds) -> None:
    """Round 2 throws out of a case into the handler around the loop: default counting counts a
    block whole when an instruction in it throws (JP's convention), so it stops before."""
    out = tmp_path / "out.jar"
    _rewrite(switch_jar, out, counting)
    r = run_java([out], MAIN, rounds, profile=tmp_path / "p.json")
    assert r.returncode == 0, r.stderr
    oracle = run_oracle([switch_jar], MAIN, [rounds], app_patterns=("com.example.",), timeout=600)
    assert oracle.stdout == r.stdout
    from test_cct_oracle import without_object_init

    expected = {**oracle.profile, "root": without_object_init(oracle.profile["root"])}
    differences = diff_profiles(expected, r.profile)
    assert not differences, "\n".join(differences[:40])
