"""What a rewritten program finds by reflection over its own classes is what the original finds.

The rewriting adds synthetic members to every class it instruments (``m$jp`` twins, outlined
parts ``m$jp$N``, ``$jprewrite$class()``, the field ``$jprewrite$instrumented``) and default
``m$jp`` methods to interfaces. A program that lists its methods or fields would print them.
Where rewritten code calls ``Class.getDeclaredMethods``, ``getMethods``, ``getDeclaredFields``
or ``getFields``, the runtime's ``Members`` leaves them out: the program below prints each list
of a class with a virtual method (override check), a static one, an interface with a default
method and a subclass, and the original's own synthetic members (a bridge method, a lambda body, an
inner class's ``this$0`` field) stay. Offline and under the agent, stdout is the original's.
"""

from __future__ import annotations

import pytest

from support.agent import agent_options, run_with_agent
from support.jdk import javac
from support.profiling import make_jar, rewrite, run_java

SOURCE = """
package members;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Comparator;
import java.util.function.Supplier;

public class Main {
    interface Shape {
        int area();

        default String describe() {
            return "shape " + area();
        }
    }

    static class Square implements Shape, Comparable<Square> {
        int side = 2;
        static int made;

        public int area() {
            return side * side;
        }

        public int compareTo(Square o) {   // and a synthetic bridge compareTo(Object)
            return Integer.compare(side, o.side);
        }

        static Square of(int s) {
            made++;
            Square q = new Square();
            q.side = s;
            return q;
        }
    }

    static class Cube extends Square {
        @Override
        public int area() {
            return 6 * side * side;
        }
    }

    class Inner {   // a synthetic field this$0
        int twice() {
            return 2;
        }
    }

    static String list(Method[] ms) {
        String[] names = new String[ms.length];
        for (int i = 0; i < ms.length; i++) {
            names[i] = ms[i].getName() + (ms[i].isSynthetic() ? "(synthetic)" : "") + ms[i].getParameterCount();
        }
        Arrays.sort(names);
        return String.join(",", names);
    }

    static String list(Field[] fs) {
        String[] names = new String[fs.length];
        for (int i = 0; i < fs.length; i++) {
            names[i] = fs[i].getName() + (fs[i].isSynthetic() ? "(synthetic)" : "");
        }
        Arrays.sort(names);
        return String.join(",", names);
    }

    public static void main(String[] args) {
        Supplier<Square> s = () -> Square.of(3);
        System.out.println(s.get().describe() + " " + new Cube().describe());
        for (Class<?> c : new Class<?>[] {Main.class, Shape.class, Square.class, Cube.class, Inner.class}) {
            System.out.println(c.getSimpleName() + " declared " + list(c.getDeclaredMethods()));
            System.out.println(c.getSimpleName() + " public " + list(c.getMethods()).replaceAll("(wait|notify|notifyAll|getClass|hashCode|equals|toString)[0-9],?", ""));
            System.out.println(c.getSimpleName() + " fields " + list(c.getDeclaredFields()) + " / " + list(c.getFields()));
        }
        Method[] ms = Square.class.getDeclaredMethods();
        Arrays.sort(ms, Comparator.comparing(Method::toString));
        System.out.println(ms.length + " " + ms[0]);
    }
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("members")
    classes = javac({"members/Main.java": SOURCE}, tmp / "classes")
    jar = make_jar(classes, tmp / "members.jar")
    plain = run_java([jar], "members.Main")
    assert plain.returncode == 0, plain.stderr
    assert "compareTo(synthetic)1" in plain.stdout and "this$0(synthetic)" in plain.stdout, plain.stdout
    assert "lambda$main$0(synthetic)0" in plain.stdout, plain.stdout
    return jar, plain


def test_rewritten_program_finds_the_original_members(program, tmp_path) -> None:
    jar, plain = program
    out = tmp_path / "members-out.jar"
    rewrite([jar], out)
    run = run_java([out], "members.Main", jvm=("-Xverify:all", "-Djprewrite.output=none"))
    assert run.returncode == 0, run.stderr
    assert run.stdout == plain.stdout


def test_program_under_the_agent_finds_the_original_members(program, tmp_path) -> None:
    jar, plain = program
    options = agent_options(tmp_path / "cache", tmp_path / "agent.json", progress="false")
    run = run_with_agent([jar], ["members.Main"], options)
    assert run.returncode == 0, run.stderr
    assert run.stdout == plain.stdout
