import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import jprewrite.runtime.MethodId;
import jprewrite.runtime.Node;
import jprewrite.runtime.ThreadRoot;

/**
 * Pending calls: calls into the JDK whose dispatch may land directly in instrumented code.
 * Consumed (the receiver's own instrumented override), materialised (a callback from the JDK
 * method), closed by endPending without a callback, and closed from the catch-all handler.
 */
public class Pending {
    static final MethodId MAIN = MethodId.get("Pending", "main", "([Ljava/lang/String;)V", 0, 6);
    static final MethodId LIST_SORT = MethodId.get("java.util.List", "sort", "(Ljava/util/Comparator;)V", 1, 0);
    static final MethodId COMPARATOR_COMPARE = MethodId.get("java.util.Comparator", "compare",
            "(Ljava/lang/Object;Ljava/lang/Object;)I", 1, 0);
    static final MethodId LIST_SIZE = MethodId.get("java.util.List", "size", "()I", 1, 0);
    static final MethodId LIST_GET = MethodId.get("java.util.List", "get", "(I)Ljava/lang/Object;", 1, 0);

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
        List<Object> list = new ArrayList<Object>();
        for (String s : new String[] {"pear", "apple", "fig", "kiwi", "banana", "cherry"}) {
            list.add(s);
        }
        Cmp cmp = new Cmp();
        // site 0: list.sort(cmp): ArrayList.sort calls cmp.compare back -> boundary node List.sort
        ThreadRoot.pending(node, 0, LIST_SORT, list);
        try {
            list.sort(cmp);
        } catch (Throwable t) {
            ThreadRoot.endPending(node, 0, LIST_SORT);
            throw t;
        }
        ThreadRoot.endPending(node, 0, LIST_SORT);
        int sortCompares = Cmp.count;
        // site 1: cmp.compare(...) through Comparator: dispatch goes straight to Cmp (consumed)
        Comparator<Object> c = cmp;
        ThreadRoot.pending(node, 1, COMPARATOR_COMPARE, c);
        int r;
        try {
            r = c.compare("a", "b");
        } catch (Throwable t) {
            ThreadRoot.endPending(node, 1, COMPARATOR_COMPARE);
            throw t;
        }
        ThreadRoot.endPending(node, 1, COMPARATOR_COMPARE);
        // site 2: list.size() three times: no callback, endPending makes the boundary node
        int size = 0;
        for (int i = 0; i < 3; i++) {
            ThreadRoot.pending(node, 2, LIST_SIZE, list);
            try {
                size = list.size();
            } catch (Throwable t) {
                ThreadRoot.endPending(node, 2, LIST_SIZE);
                throw t;
            }
            ThreadRoot.endPending(node, 2, LIST_SIZE);
        }
        // site 3: list.get(100) throws: the catch-all handler closes the pending call
        String caught = "none";
        try {
            ThreadRoot.pending(node, 3, LIST_GET, list);
            try {
                list.get(100);
            } catch (Throwable t) {
                ThreadRoot.endPending(node, 3, LIST_GET);
                throw t;
            }
            ThreadRoot.endPending(node, 3, LIST_GET);
        } catch (IndexOutOfBoundsException e) {
            caught = "IOOBE";
        }
        // site 4: an instrumented subclass of a JDK class overriding size(): consumed
        MyList mine = new MyList();
        ThreadRoot.pending(node, 4, LIST_SIZE, mine);
        int mySize;
        try {
            mySize = mine.size();
        } catch (Throwable t) {
            ThreadRoot.endPending(node, 4, LIST_SIZE);
            throw t;
        }
        ThreadRoot.endPending(node, 4, LIST_SIZE);
        System.out.println("sorted=" + list + " sortCompares=" + sortCompares + " r=" + r + " size=" + size
                + " caught=" + caught + " mySize=" + mySize + " published=" + node.root.published);
    }

    static final class Cmp implements Comparator<Object> {
        static final MethodId COMPARE = MethodId.get("Pending$Cmp", "compare",
                "(Ljava/lang/Object;Ljava/lang/Object;)I", 0, 1);
        static final MethodId TO_STRING = MethodId.get("java.lang.Object", "toString", "()Ljava/lang/String;", 1, 0);
        static int count;

        @Override
        public int compare(Object a, Object b) {
            Node p = ThreadRoot.n2bParent(this, COMPARE);
            Node saved = p.root.published;
            try {
                return compare(a, b, p, -1);
            } finally {
                p.root.published = saved;
            }
        }

        int compare(Object a, Object b, Node node, int site) {
            node = node.enter(site, COMPARE);
            node.bytecodes += 4;
            count++;
            // a pending call inside the callback: a.toString() on a String does not call back
            ThreadRoot.pending(node, 0, TO_STRING, a);
            String s;
            try {
                s = a.toString();
            } catch (Throwable t) {
                ThreadRoot.endPending(node, 0, TO_STRING);
                throw t;
            }
            ThreadRoot.endPending(node, 0, TO_STRING);
            return s.compareTo(b.toString());
        }
    }

    static final class MyList extends ArrayList<Object> {
        private static final long serialVersionUID = 1L;
        static final MethodId SIZE = MethodId.get("Pending$MyList", "size", "()I", 0, 0);

        @Override
        public int size() {
            Node p = ThreadRoot.n2bParent(this, SIZE);
            Node saved = p.root.published;
            try {
                return size(p, -1);
            } finally {
                p.root.published = saved;
            }
        }

        int size(Node node, int site) {
            node = node.enter(site, SIZE);
            node.bytecodes += 1;
            return 42;
        }
    }
}
