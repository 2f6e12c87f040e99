"""``jprewrite IN OUT`` end to end: rewritten programs run under -Xverify:all, behave the same, and profile exactly.

Expectations here are computed by hand from the papers and ``javap -c`` (the
JDI oracle comparisons live in test_cct_oracle.py).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from support.jdk import javac, run, tool
from support.profiling import find, make_jar, paths, rewrite, run_java

# JP Fig. 4, left column, verbatim, plus a main.
FIG4 = {
    "Foo.java": """
class Foo {
  void f() { for (int i=1;i<=10;++i) { h(); g(i); } }
  void g(int i) { for (int j=1;j<=i;++j) h(); }
  void h() { }
}
""",
    "Fig4.java": """
public class Fig4 {
  public static void main(String[] args) { new Foo().f(); System.out.println("done"); }
}
""",
}


@pytest.fixture(scope="module")
def fig4(tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("fig4")
    classes = javac(FIG4, tmp / "classes")
    jar = make_jar(classes, tmp / "fig4.jar")
    return tmp, jar


@pytest.mark.parametrize("counting", ["default", "precise"])
def test_jp_figure_4_calls_and_bytecodes(fig4, counting) -> None:
    tmp, jar = fig4
    out = tmp / f"fig4-{counting}.jar"
    rewrite([jar], out, "--counting", counting)
    r = run_java([out], "Fig4", profile=tmp / f"profile-{counting}.json")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "done\n"
    p = r.profile
    main = "Fig4.main([Ljava/lang/String;)V"
    f = find(p, main, "Foo.f()V")
    # JP section 3.2: f = 1, f.h = 10, f.g = 10, f.g.h = 55
    assert f["calls"] == 1
    assert find(p, main, "Foo.f()V", "Foo.h()V")["calls"] == 10
    assert find(p, main, "Foo.f()V", "Foo.g(I)V")["calls"] == 10
    assert find(p, main, "Foo.f()V", "Foo.g(I)V", "Foo.h()V")["calls"] == 55
    # Bytecodes from javap -c (JP Fig. 5's blocks):
    #  f: iconst_1 istore_1 | iload_1 bipush if_icmpgt | aload_0 invokevirtual aload_0 iload_1
    #     invokevirtual iinc goto | return  ->  2 + 11*3 + 10*7 + 1 = 106
    #  g(i): iconst_1 istore_2 | iload_2 iload_1 if_icmpgt | aload_0 invokevirtual iinc goto | return
    #     -> 2 + (i+1)*3 + i*4 + 1 = 6 + 7i; sum over i = 1..10: 60 + 7*55 = 445
    #  h: return -> 1 per call
    assert f["bytecodes"] == 106
    assert find(p, main, "Foo.f()V", "Foo.g(I)V")["bytecodes"] == 445
    assert find(p, main, "Foo.f()V", "Foo.h()V")["bytecodes"] == 10
    assert find(p, main, "Foo.f()V", "Foo.g(I)V", "Foo.h()V")["bytecodes"] == 55
    # main: new dup invokespecial invokevirtual getstatic ldc invokevirtual return = 8
    assert find(p, main)["bytecodes"] == 8
    assert find(p, main, "Foo.<init>()V") == {**find(p, main, "Foo.<init>()V"), "calls": 1, "bytecodes": 3}


def test_counting_none_still_builds_the_tree(fig4) -> None:
    tmp, jar = fig4
    out = tmp / "fig4-none.jar"
    rewrite([jar], out, "--counting", "none")
    r = run_java([out], "Fig4", profile=tmp / "profile-none.json")
    assert r.returncode == 0, r.stderr
    got = paths(r.profile)
    main = "Fig4.main([Ljava/lang/String;)V"
    assert got[(main, "Foo.f()V", "Foo.g(I)V", "Foo.h()V")] == (55, 0)


def test_output_is_self_contained_and_input_untouched(fig4) -> None:
    tmp, jar = fig4
    before = jar.read_bytes()
    out = tmp / "fig4-self.jar"
    rewrite([jar], out)
    assert jar.read_bytes() == before
    names = zipfile.ZipFile(out).namelist()
    assert "jprewrite/runtime/Node.class" in names
    assert "Foo.class" in names
