package jprewrite.junit;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import jprewrite.runtime.Measure;
import jprewrite.runtime.Measurement;

/**
 * What the JUnit integrations share: measuring a test body, keeping the test method's own subtree,
 * and checking it against a {@link BytecodeBudget} and a {@link BytecodeBaseline} file.
 */
final class Checks {
    /** Default directory of baseline files, relative to the working directory. */
    static final String DEFAULT_DIRECTORY = "src/test/resources/jprewrite-baselines";
    private static final int CONTEXT_LINES = 8;

    /** Something that runs the test body and may throw anything. */
    interface Body {
        void run() throws Throwable;
    }

    /** Run {@code body} under {@link Measure}; the body's own failure is thrown on unchanged. */
    static Measurement measure(final Body body) throws Throwable {
        final Throwable[] failure = new Throwable[1];
        Measurement m = Measure.call(new Callable<Object>() {
            @Override
            public Object call() {
                try {
                    body.run();
                } catch (Throwable t) {
                    failure[0] = t;
                }
                return null;
            }
        });
        if (failure[0] != null) {
            throw failure[0];
        }
        return m;
    }

    /**
     * The test method's own subtree: what ran inside it, without the framework's invocation code
     * (when that is instrumented too). The whole measurement when the test class is not
     * instrumented (then only what it called was counted).
     */
    static Measurement testBody(Measurement whole, Method test) {
        String name = methodString(test);
        return whole.contains(name) ? whole.within(name) : whole;
    }

    /** {@code com.acme.FooTest.sorts()V}: how the runtime names the method's contexts. */
    static String methodString(Method m) {
        StringBuilder sb = new StringBuilder(m.getDeclaringClass().getName()).append('.').append(m.getName()).append('(');
        for (Class<?> p : m.getParameterTypes()) {
            sb.append(descriptor(p));
        }
        return sb.append(')').append(descriptor(m.getReturnType())).toString();
    }

    private static String descriptor(Class<?> c) {
        if (c.isArray()) {
            return c.getName().replace('.', '/');
        }
        if (!c.isPrimitive()) {
            return "L" + c.getName().replace('.', '/') + ";";
        }
        if (c == void.class) {
            return "V";
        }
        if (c == boolean.class) {
            return "Z";
        }
        if (c == long.class) {
            return "J";
        }
        return String.valueOf(Character.toUpperCase(c.getName().charAt(0)));   // B C D F I S
    }

    /**
     * Check {@code m} (the test body) against the annotations (either may be null); an
     * AssertionError naming every exceeded limit and the contexts that grew most.
     */
    static void verify(Measurement m, String test, BytecodeBudget budget, BytecodeBaseline baseline, File file)
            throws IOException {
        List<String> failures = new ArrayList<String>();
        if (budget != null) {
            budgetFailures(m, test, budget, failures);
        }
        if (baseline != null) {
            String failure = baselineFailure(m, test, baseline, file);
            if (failure != null) {
                failures.add(failure);
            }
        }
        if (!failures.isEmpty()) {
            StringBuilder sb = new StringBuilder();
            for (String f : failures) {
                sb.append(sb.length() == 0 ? "" : "\n").append(f);
            }
            throw new AssertionError(sb.toString());
        }
    }

    private static void budgetFailures(Measurement m, String test, BytecodeBudget budget, List<String> failures) {
        String top = null;
        if (m.bytecodes() > budget.max()) {
            top = m.summary(CONTEXT_LINES);
            failures.add(String.format(Locale.ROOT, "bytecode budget exceeded by %s: %,d bytecodes, max %,d (%s)%n%s",
                    test, m.bytecodes(), budget.max(), Contexts.change(budget.max(), m.bytecodes()), top));
        }
        if (budget.maxAllocations() >= 0 && m.allocations() > budget.maxAllocations()) {
            failures.add(String.format(Locale.ROOT, "allocation budget exceeded by %s: %,d allocations, max %,d (%s)%s",
                    test, m.allocations(), budget.maxAllocations(),
                    Contexts.change(budget.maxAllocations(), m.allocations()),
                    top == null ? String.format("%n%s", m.summary(CONTEXT_LINES)) : ""));
        }
    }

    /** The failure message, or null when within tolerance (or the baseline was just written). */
    private static String baselineFailure(Measurement m, String test, BytecodeBaseline baseline, File file)
            throws IOException {
        String json = m.toJson();
        if (!file.isFile() || "true".equals(System.getProperty("jprewrite.update"))) {
            write(file, json);
            System.err.println("jprewrite: wrote the bytecode baseline of " + test + " to " + file.getPath());
            return null;
        }
        Contexts before;
        try {
            before = Contexts.of(read(file));
        } catch (IllegalArgumentException e) {
            return "cannot read the bytecode baseline " + file.getPath() + ": " + e.getMessage()
                    + " (rerun with -Djprewrite.update=true to write it again)";
        }
        Contexts after = Contexts.of(json);
        // the rule of `jprewrite diff`: the total or any context's own count may grow by at most
        // `tolerance` percent of the baseline's total
        double share = Math.max(baseline.tolerance(), 0) / 100.0;
        if (!Contexts.grew(before, after, Contexts.BYTECODES, before.bytecodes * share)
                && !Contexts.grew(before, after, Contexts.ALLOCATIONS, before.allocations * share)) {
            return null;
        }
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%s grew beyond its bytecode baseline: %,d -> %,d bytecodes (%s)",
                test, before.bytecodes, after.bytecodes, Contexts.change(before.bytecodes, after.bytecodes)));
        if (before.allocations != 0 || after.allocations != 0) {
            sb.append(String.format(Locale.ROOT, ", %,d -> %,d allocations (%s)", before.allocations,
                    after.allocations, Contexts.change(before.allocations, after.allocations)));
        }
        sb.append(String.format(Locale.ROOT, "; tolerance %s%% of the total, for it and for each context; "
                + "baseline %s (after an intended change, rerun with "
                + "-Djprewrite.update=true)%ncontexts that grew most:", trim(baseline.tolerance()), file.getPath()));
        for (String line : Contexts.grownMost(before, after, CONTEXT_LINES)) {
            sb.append(String.format("%n  ")).append(line);
        }
        return sb.toString();
    }

    private static String trim(double d) {
        return d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(d);
    }

    /** The baseline file of a test: {@code <directory>/<class>/<method>.json} unless the annotation says otherwise. */
    static File baselineFile(BytecodeBaseline b, Class<?> testClass, String methodKey) {
        String dir = b.directory();
        if (dir.isEmpty()) {
            dir = System.getProperty("jprewrite.baselines", "");
        }
        if (dir.isEmpty()) {
            dir = DEFAULT_DIRECTORY;
        }
        String file = b.file().isEmpty() ? testClass.getName() + "/" + methodKey + ".json" : b.file();
        File f = new File(file);
        return f.isAbsolute() ? f : new File(dir, file);
    }

    /** A file name for one invocation: the method name, and {@code [N]} for repeated/parameterized ones. */
    static String methodKey(Method m, String uniqueId) {
        String key = m.getName();
        int hash = uniqueId == null ? -1 : uniqueId.lastIndexOf(":#");
        if (m.getParameterTypes().length > 0 || hash >= 0) {
            int end = uniqueId == null ? -1 : uniqueId.indexOf(']', hash);
            if (hash >= 0 && end > hash) {
                key += "[" + uniqueId.substring(hash + 2, end) + "]";
            }
        }
        return key.replaceAll("[^A-Za-z0-9_$.\\[\\]-]", "_");
    }

    private static String read(File f) throws IOException {
        InputStream in = new FileInputStream(f);
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            int n;
            while ((n = in.read(buf)) > 0) {
                out.write(buf, 0, n);
            }
            return new String(out.toByteArray(), "UTF-8");
        } finally {
            in.close();
        }
    }

    /** Write through a temporary file and a rename, so a crash never leaves half a baseline. */
    private static void write(File f, String text) throws IOException {
        File dir = f.getAbsoluteFile().getParentFile();
        if (dir != null && !dir.isDirectory() && !dir.mkdirs() && !dir.isDirectory()) {
            throw new IOException("cannot create directory " + dir);
        }
        File tmp = new File(dir, "." + f.getName() + ".tmp");
        OutputStream out = new FileOutputStream(tmp);
        try {
            out.write(text.getBytes("UTF-8"));
        } finally {
            out.close();
        }
        if (!tmp.renameTo(f.getAbsoluteFile())) {
            f.delete();
            if (!tmp.renameTo(f.getAbsoluteFile())) {
                throw new IOException("cannot write " + f);
            }
        }
    }

    private Checks() {
    }
}
