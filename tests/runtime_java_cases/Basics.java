import java.util.Arrays;
import java.util.Comparator;

import jprewrite.runtime.MethodId;
import jprewrite.runtime.Node;
import jprewrite.runtime.ThreadRoot;

/**
 * Boundary calls into the JDK with callbacks, static initialisers under a published node,
 * allocation counts, weights, a native method (B2N) calling back, a polymorphic call site.
 */
public class Basics {
    static final MethodId MAIN = MethodId.get("Basics", "main", "([Ljava/lang/String;)V", 0, 6);
    static final MethodId MAX = MethodId.get("java.lang.Math", "max", "(II)I", 1, 0);
    static final MethodId SORT = MethodId.get("java.util.Arrays", "sort",
            "([Ljava/lang/Object;Ljava/util/Comparator;)V", 1, 0);
    static final MethodId NATIVE = MethodId.get("Basics", "nativeWork", "(LBasics$Cmp;)V", 3, 0);

    public static void main(String[] args) {
        Node p = ThreadRoot.n2bParent(null, MAIN);
        Node saved = p.root.published;
        try {
            main(args, p, -1);
        } finally {
            p.root.published = saved;
        }
    }

    static void main(String[] args, Node node, int site) {
        node = node.enter(site, MAIN);
        node.bytecodes += 10;
        node.addWeighted(25);
        // site 0: a JDK method, three times
        int m = 0;
        for (int i = 0; i < 3; i++) {
            node.boundary(0, MAX);
            m = Math.max(m, i);
        }
        // site 1: a JDK method that calls back into instrumented code (through N2B wrappers)
        Cmp cmp = new Cmp();
        node.allocate("Basics$Cmp");
        Integer[] data = {5, 3, 9, 1};
        node.allocate("[Ljava/lang/Integer;");
        node.boundary(1, SORT);
        Arrays.sort(data, cmp);
        // site 2: a static initialiser runs beneath the node published before `getstatic`
        node.publish();
        int v = Init.VALUE;
        // site 3: a polymorphic call site alternating between two callees (the cache must not confuse them)
        Shape[] shapes = {new Square(), new Circle(), new Square(), new Circle(), new Circle()};
        for (Shape s : shapes) {
            s.area(node, 3);
        }
        // allocations: identical strings by identity (ldc) and by equality only
        for (int i = 0; i < 3; i++) {
            node.allocate("java/lang/StringBuilder");
        }
        node.allocate(new String("java/lang/StringBuilder"));
        // site 4: B2N for a "native" method that calls back
        Node c = node.enter(4, NATIVE);
        Node before = c.root.published;
        c.root.published = c;
        try {
            nativeWork(cmp);
        } finally {
            c.root.published = before;
        }
        System.out.println("sorted=" + Arrays.toString(data) + " max=" + m + " init=" + v
                + " compares=" + Cmp.count);
    }

    /** Stands in for a native method: uninstrumented code calling the original signature. */
    static void nativeWork(Cmp cmp) {
        cmp.compare(1, 2);
        cmp.compare(2, 1);
    }

    static final class Cmp implements Comparator<Integer> {
        static final MethodId COMPARE = MethodId.get("Basics$Cmp", "compare",
                "(Ljava/lang/Integer;Ljava/lang/Integer;)I", 0, 0);
        static int count;

        @Override
        public int compare(Integer a, Integer b) {
            Node p = ThreadRoot.n2bParent(this, COMPARE);
            Node saved = p.root.published;
            try {
                return compare(a, b, p, -1);
            } finally {
                p.root.published = saved;
            }
        }

        int compare(Integer a, Integer b, Node node, int site) {
            node = node.enter(site, COMPARE);
            node.bytecodes += 6;
            count++;
            return a.compareTo(b);
        }
    }

    static final class Init {
        static final MethodId CLINIT = MethodId.get("Basics$Init", "<clinit>", "()V", 0, 0);
        static final int VALUE;

        static {
            Node node = ThreadRoot.n2bParent(null, CLINIT).enter(-1, CLINIT);
            node.bytecodes += 3;
            VALUE = 7;
        }
    }

    abstract static class Shape {
        abstract int area(Node node, int site);
    }

    static final class Square extends Shape {
        static final MethodId AREA = MethodId.get("Basics$Square", "area", "()I", 0, 0);

        @Override
        int area(Node node, int site) {
            node = node.enter(site, AREA);
            node.bytecodes += 2;
            return 4;
        }
    }

    static final class Circle extends Shape {
        static final MethodId AREA = MethodId.get("Basics$Circle", "area", "()I", 0, 0);

        @Override
        int area(Node node, int site) {
            node = node.enter(site, AREA);
            node.bytecodes += 5;
            return 3;
        }
    }
}
