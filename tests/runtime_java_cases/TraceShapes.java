import jprewrite.runtime.Traces;

/**
 * {@code Traces.clean} on traces of every shape the rewriting makes, written by hand (innermost
 * frame first), printed one cleaned trace a line: "class.method:line" frames separated by spaces.
 */
public class TraceShapes {
    static StackTraceElement f(String cls, String method, int line) {
        return new StackTraceElement(cls, method, "X.java", line);
    }

    static void show(StackTraceElement... trace) {
        StringBuilder sb = new StringBuilder();
        for (StackTraceElement e : Traces.clean(trace)) {
            sb.append(e.getClassName()).append('.').append(e.getMethodName()).append(':').append(e.getLineNumber()).append(' ');
        }
        System.out.println(sb.toString().trim());
    }

    public static void main(String[] args) {
        // twin called through its N2B wrapper by the JDK, recursion twin to twin
        show(f("A", "m$jp", 3), f("A", "m$jp", 4), f("A", "m", -1), f("java.util.ArrayList", "sort", 10));
        // an interface call through the caller's holder, an outlined part called by its twin
        show(f("B", "run$jp$2", 30), f("B", "run$jp$0", 20), f("B", "run$jp", 12), f("C$$jpmids", "run", -1),
             f("C", "go$jp", 7), f("C", "go", -1));
        // a delegating ESI method below the method it calls; a B2N twin below its native method
        show(f("D", "abs", 5), f("D", "abs$jp", -1), f("E", "nat", -2), f("E", "nat$jp", -1), f("F", "main$jp", 9));
        // nothing of jprewrite's: the same array
        StackTraceElement[] plain = {f("G", "m", 1), f("G", "m", -1), f("G", "x$jpy", 2)};
        System.out.println(Traces.clean(plain) == plain);
        // a method whose own name has "$jp" inside, not at the end, is the program's
        show(f("H", "a$jpb$jp", 1), f("H", "a$jpb", -1));
        // a throwable, its cause and a suppressed one, cleaned in place; a cycle of causes ends
        RuntimeException cause = new RuntimeException("cause");
        cause.setStackTrace(new StackTraceElement[] {f("I", "c$jp", 1), f("I", "c", -1)});
        RuntimeException top = new RuntimeException("top", cause);
        top.setStackTrace(new StackTraceElement[] {f("J", "t$jp", 2)});
        Exception suppressed = new Exception("suppressed");
        suppressed.setStackTrace(new StackTraceElement[] {f("K", "s$jp$1", 8), f("K", "s$jp", 3)});
        top.addSuppressed(suppressed);
        Traces.cleanThrowable(top);
        show(top.getStackTrace());
        show(cause.getStackTrace());
        show(suppressed.getStackTrace());
        // a trace that cannot be written stays; a misbehaving throwable is left alone
        Throwable fixed = new Throwable("fixed", null, false, false) {};
        Traces.cleanThrowable(fixed);
        Traces.cleanThrowable(new RuntimeException() {
            @Override
            public StackTraceElement[] getStackTrace() {
                throw new IllegalStateException("no trace");
            }
        });
        System.out.println(fixed.getStackTrace().length + " done");
        System.out.println(Traces.methodName("m$jp") + " " + Traces.methodName("m$jp$2") + " " + Traces.methodName("a$jpb")
                + " " + Traces.element(f("L", "n$jp", 4)).getMethodName() + " " + Traces.methodName("$jp"));
    }
}
