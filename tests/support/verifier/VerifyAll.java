/*
 * VerifyAll: the test suite's independent verification harness for class files.
 *
 * Usage:  java [-Xverify:all -Xlog:class+init=info:file=F::filecount=0] VerifyAll jvm|asm [options] [input...]
 *         (tests/support/verifier.py compiles and runs it; it needs ASM on the class path in asm mode)
 *   input                  a jar/zip file or a directory that is a class-path root
 *   --inputs-file F        more inputs, one path per line (UTF-8)
 *   --cp PATHS             extra class path (File.pathSeparator-separated), searched after the inputs
 *   --classpath-file F     more extra class path, one path per line (UTF-8)
 *   --threads N            check classes on N threads (default 1)
 *   --jvm-log F            jvm mode: the file the JVM logs class+init=info to (see below)
 *
 * Every class-file entry of the inputs is checked once (the first copy of a name wins, as on a
 * class path; later copies are reported DUPLICATE, before any verdict). Entries under META-INF/
 * (multi-release versions/**, ...) and module-info.class are ignored (counted as "ignored").
 * Caveat for multi-release jars: the URLClassLoader opens them as such, so jvm mode checks
 * the variant this JVM would run (e.g. META-INF/versions/11/X.class) under X's name, while
 * asm mode checks the base entry X.class.
 *
 * Output, one line per class on stdout, names in internal form (a/b/C; characters <= ' ', '\'
 * and non-ASCII written as backslash-u escapes), messages on one line:
 *   OK <name>
 *   FAIL <name> <ExceptionClass>: <message>
 *   MISSING <name> <missing class>      checking needed a class that is neither in the inputs
 *                                       nor on the extra class path
 *   SKIP <name> <reason>
 *   DUPLICATE <name> <where>            a later copy of a name, not checked (not a verdict)
 *   INITIALIZED <name>                  jvm mode: a static initialiser of an input class ran
 *                                       (must never happen; a harness error, not a class error)
 *   SUMMARY ok=N fail=N missing=N skip=N duplicate=N ignored=N initialized=N
 * A later OK/FAIL/MISSING/SKIP line for a name replaces the earlier one (see --jvm-log), and the
 * SUMMARY counts the final verdicts.
 * The tool's own System.out is redirected to stderr, so nothing but these lines reaches stdout.
 *
 * jvm mode (HotSpot's verifier). A URLClassLoader over inputs + extra class path, parent = the
 * platform loader (the tool itself and ASM are invisible to it). Each class is loaded with
 * Class.forName(name, false, loader), which loads but neither links nor verifies nor
 * initialises it, then linked with Class.getFields(): HotSpot's JVM_GetClassDeclaredFields
 * (like ..DeclaredMethods/..DeclaredConstructors) calls link_class(), which verifies the class
 * (after linking its superclass and interfaces) but does not initialise it, so no static
 * initialiser runs. getFields() is used rather than getDeclaredMethods() because it resolves
 * the fewest signature types (public fields only), so a missing parameter type of some method
 * does not hide a class that verified fine. Classes of a URLClassLoader are verified even
 * without -Xverify:all (they are not from a "trusted" loader); -Xverify:all additionally
 * verifies the JDK's own classes and disables CDS (about 0.15 s of startup).
 * For version-50 class files HotSpot's type-checking verifier falls back to the old inference
 * verifier when the StackMapTable is wrong (FailOverToOldVerifier, not settable in product
 * builds), so a bad frame would pass unnoticed: when the JVM runs with
 * -Xlog:class+init=info:file=F and the tool gets --jvm-log F, the tool reads the log at the end,
 * turns "Fail over class verification to old verifier for: X" into a FAIL of X, and reports any
 * "Initializing 'X'" of an input class (defined by the tool's loader) as INITIALIZED.
 * Classes the JVM resolves to a JDK copy are SKIP: java.* can only be defined by the boot
 * loader, and for other JDK packages (javax.xml..., jdk.internal...) parent-first delegation
 * returns the JDK's class, so the input's bytes would not be the ones checked.
 *
 * asm mode (ASM's verifier). Exactly what CheckClassAdapter.verify(reader, loader, false, pw)
 * does - ClassReader.accept(new CheckClassAdapter(classNode, false), SKIP_DEBUG), then per
 * method an Analyzer<BasicValue> over a SimpleVerifier(this, super, interfaces, isInterface)
 * with setClassLoader(loader) - but reproduced here so that failures name the method and a
 * missing class (SimpleVerifier's TypeNotPresentException, or a NoClassDefFoundError when the
 * loader defines a class whose supertype is missing) can be told apart from a type error.
 * The loader is the same URLClassLoader over inputs + extra class path, so hierarchy questions
 * are answered by the input (rewritten) classes; for JDK classes among the inputs, parent-first
 * delegation answers them with the running JDK's own copies, which is acceptable because
 * rewriting does not change class hierarchies. Note that ASM's Analyzer infers types by data
 * flow and ignores the StackMapTable (only jvm mode checks frames), handles JSR/RET
 * subroutines (old class files), and does not distinguish uninitialised objects from
 * initialised ones. CheckClassAdapter also checks structure HotSpot does not (e.g. it rejects
 * an empty InnerClasses inner name, which groovy-all has): compare with a baseline run.
 */

import java.io.*;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import java.util.concurrent.*;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

public final class VerifyAll {

    /** One class-file entry of an input. */
    static final class Entry {
        final String name;      // internal name, from the entry path
        final Path input;       // the jar or directory
        final String path;      // entry path inside it
        Entry(String name, Path input, String path) { this.name = name; this.input = input; this.path = path; }
    }

    static final int MAX_MESSAGE = 4000;

    static PrintStream out;
    static int ok, fail, missing, skip, duplicate, ignored;
    static int initialized;
    static Set<String> inputNames = new HashSet<>();
    static final Map<String, String> verdict = new HashMap<>(); // name -> OK/FAIL/MISSING/SKIP

    public static void main(String[] args) throws Exception {
        out = new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16),
                              false, "UTF-8");
        System.setOut(System.err); // whatever else prints cannot corrupt the protocol
        if (args.length < 1 || !(args[0].equals("jvm") || args[0].equals("asm"))) {
            System.err.println("usage: VerifyAll jvm|asm [--cp PATHS] [--classpath-file F] [--inputs-file F] [--threads N] input...");
            System.exit(2);
        }
        String mode = args[0];
        List<Path> inputs = new ArrayList<>();
        List<Path> classpath = new ArrayList<>();
        int threads = 1;
        Path jvmLog = null;
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--cp":
                    for (String p : args[++i].split(File.pathSeparator)) if (!p.isEmpty()) classpath.add(Paths.get(p));
                    break;
                case "--classpath-file": classpath.addAll(readList(args[++i])); break;
                case "--inputs-file": inputs.addAll(readList(args[++i])); break;
                case "--threads": threads = Math.max(1, Integer.parseInt(args[++i])); break;
                case "--jvm-log": jvmLog = Paths.get(args[++i]); break;
                default: inputs.add(Paths.get(args[i]));
            }
        }

        List<Entry> entries = new ArrayList<>();
        Map<String, Entry> first = new HashMap<>();
        List<String> duplicates = new ArrayList<>();
        for (Path in : inputs) {
            for (Entry e : listEntries(in)) {
                Entry prev = first.putIfAbsent(e.name, e);
                if (prev == null) entries.add(e);
                else duplicates.add("DUPLICATE " + esc(e.name) + " in " + in + " (the copy in " + prev.input + " is checked)");
            }
        }
        inputNames = first.keySet();
        for (String d : duplicates) { out.println(d); duplicate++; }

        List<URL> urls = new ArrayList<>();
        for (Path p : inputs) urls.add(p.toUri().toURL());
        for (Path p : classpath) urls.add(p.toUri().toURL());
        URLClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());

        Map<Path, ZipFile> zips = new ConcurrentHashMap<>();
        Checker checker = mode.equals("jvm") ? e -> checkJvm(e, loader) : new AsmChecker(loader, zips);
        if (threads == 1) {
            for (Entry e : entries) report(checker.check(e));
        } else {
            ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
                Thread t = new Thread(null, r, "verify", 64L << 20);
                t.setDaemon(true);
                return t;
            });
            List<Future<String[]>> results = new ArrayList<>();
            for (Entry e : entries) results.add(pool.submit(() -> checker.check(e)));
            for (Future<String[]> f : results) report(f.get());
            pool.shutdown();
        }
        for (ZipFile z : zips.values()) z.close();
        if (jvmLog != null) readJvmLog(jvmLog);
        out.println("SUMMARY ok=" + ok + " fail=" + fail + " missing=" + missing + " skip=" + skip + " duplicate=" + duplicate
                    + " ignored=" + ignored + " initialized=" + initialized);
        out.flush();
        System.exit(0); // no checked class runs code, but never wait for a stray non-daemon thread
    }

    interface Checker { String[] check(Entry e) throws Exception; }

    /** A result: {kind, name, detail}. */
    static String[] result(String kind, String name, String detail) { return new String[] {kind, name, detail}; }

    static void report(String[] r) {
        String before = verdict.put(r[1], r[0]);
        if (before != null) count(before, -1);
        count(r[0], 1);
        out.println(r[0] + " " + esc(r[1]) + (r[0].equals("OK") ? "" : " " + oneLine(r[2])));
    }

    static void count(String kind, int d) {
        switch (kind) {
            case "OK": ok += d; break;
            case "FAIL": fail += d; break;
            case "MISSING": missing += d; break;
            case "SKIP": skip += d; break;
            default: throw new IllegalStateException(kind);
        }
    }

    /** Failovers to the old verifier become FAILs; initialised input classes are reported. */
    static void readJvmLog(Path log) throws IOException {
        final String failover = "Fail over class verification to old verifier for: ";
        final String init = "Initializing '";
        Set<String> seen = new HashSet<>();
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            int i;
            if ((i = line.indexOf(failover)) >= 0) {
                String name = line.substring(i + failover.length()).trim().replace('.', '/');
                String v = verdict.get(name);
                if (v != null && !v.equals("SKIP") && !v.equals("FAIL") && seen.add("F" + name))
                    report(result("FAIL", name, "java.lang.VerifyError: HotSpot's type-checking verifier rejected this "
                            + "class (a version-50 class file, so probably its StackMapTable) and fell back to the old "
                            + "inference verifier, which accepted it; rerun with -Xlog:verification=info for the reason"));
            } else if ((i = line.indexOf(init)) >= 0) {
                int end = line.indexOf('\'', i + init.length());
                if (end < 0) continue;
                String name = line.substring(i + init.length(), end);
                String v = verdict.get(name);
                if (v != null && !v.equals("SKIP") && seen.add("I" + name)) {
                    initialized++;
                    out.println("INITIALIZED " + esc(name));
                }
            }
        }
    }

    // ------------------------------------------------------------------ jvm mode
    static String[] checkJvm(Entry e, ClassLoader loader) {
        String name = e.name;
        if (name.startsWith("java/"))
            return result("SKIP", name, "java.* classes can only be defined by the boot loader");
        try {
            Class<?> c = Class.forName(name.replace('/', '.'), false, loader); // loads, does not link
            if (c.getClassLoader() != loader)
                return result("SKIP", name, "resolves to the JDK's own class (" + (c.getClassLoader() == null ? "boot"
                        : c.getClassLoader().getName()) + " loader), not the input's");
            c.getFields(); // links: verifies, without initialising
            return result("OK", name, null);
        } catch (Throwable t) {
            return classify(name, t);
        }
    }

    // ------------------------------------------------------------------ asm mode
    static final class AsmChecker implements Checker {
        final ClassLoader loader;
        final Map<Path, ZipFile> zips;
        AsmChecker(ClassLoader loader, Map<Path, ZipFile> zips) { this.loader = loader; this.zips = zips; }

        public String[] check(Entry e) throws Exception {
            byte[] bytes;
            if (Files.isDirectory(e.input)) {
                bytes = Files.readAllBytes(e.input.resolve(e.path));
            } else {
                ZipFile z = zips.computeIfAbsent(e.input, p -> {
                    try { return new ZipFile(p.toFile()); } catch (IOException x) { throw new UncheckedIOException(x); }
                });
                try (InputStream in = z.getInputStream(z.getEntry(e.path))) { bytes = in.readAllBytes(); }
            }
            try {
                return Asm.verify(e.name, bytes, loader);
            } catch (Throwable t) {
                return classify(e.name, t);
            }
        }
    }

    /** Kept in its own class so that jvm mode runs without ASM on the class path. */
    static final class Asm {
        static String[] verify(String name, byte[] bytes, ClassLoader loader) {
            org.objectweb.asm.ClassReader reader = new org.objectweb.asm.ClassReader(bytes);
            if (!reader.getClassName().equals(name))
                return result("FAIL", name, "java.lang.NoClassDefFoundError: " + name + " (wrong name: " + reader.getClassName() + ")");
            org.objectweb.asm.tree.ClassNode node = new org.objectweb.asm.tree.ClassNode();
            reader.accept(new org.objectweb.asm.util.CheckClassAdapter(node, false), org.objectweb.asm.ClassReader.SKIP_DEBUG);
            org.objectweb.asm.Type superType = node.superName == null ? null : org.objectweb.asm.Type.getObjectType(node.superName);
            List<org.objectweb.asm.Type> interfaces = new ArrayList<>();
            for (String i : node.interfaces) interfaces.add(org.objectweb.asm.Type.getObjectType(i));
            boolean isInterface = (node.access & org.objectweb.asm.Opcodes.ACC_INTERFACE) != 0;
            StringBuilder failures = new StringBuilder();
            String missingClass = null;
            for (org.objectweb.asm.tree.MethodNode m : node.methods) {
                org.objectweb.asm.tree.analysis.SimpleVerifier verifier = new org.objectweb.asm.tree.analysis.SimpleVerifier(
                        org.objectweb.asm.Type.getObjectType(node.name), superType, interfaces, isInterface);
                verifier.setClassLoader(loader);
                org.objectweb.asm.tree.analysis.Analyzer<org.objectweb.asm.tree.analysis.BasicValue> analyzer =
                        new org.objectweb.asm.tree.analysis.Analyzer<>(verifier);
                try {
                    analyzer.analyze(node.name, m);
                } catch (Throwable x) { // AnalyzerException, or an Error of the loader (e.g. NoClassDefFoundError)
                    String miss = missingClassOf(x);
                    if (miss != null) {
                        if (missingClass == null) missingClass = miss;
                    } else {
                        if (failures.length() > 0) failures.append(" ;; ");
                        failures.append(m.name).append(m.desc).append(": ");
                        if (!(x instanceof org.objectweb.asm.tree.analysis.AnalyzerException))
                            failures.append(x.getClass().getName()).append(": ");
                        failures.append(x.getMessage());
                    }
                }
            }
            if (failures.length() > 0)
                return result("FAIL", name, "org.objectweb.asm.tree.analysis.AnalyzerException: " + failures);
            if (missingClass != null) return result("MISSING", name, missingClass);
            return result("OK", name, null);
        }
    }

    // ------------------------------------------------------------------ classification
    /** FAIL, or MISSING when the throwable says a class outside the inputs could not be found. */
    static String[] classify(String name, Throwable t) {
        String miss = missingClassOf(t);
        if (miss != null) return result("MISSING", name, miss);
        return result("FAIL", name, t.getClass().getName() + ": " + t.getMessage());
    }

    /** The missing class (internal name) if t or a cause is a not-found error for a class not in the inputs. */
    static String missingClassOf(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            String n = null;
            if (c instanceof NoClassDefFoundError || c instanceof ClassNotFoundException) n = c.getMessage();
            else if (c instanceof TypeNotPresentException) n = ((TypeNotPresentException) c).typeName();
            if (n == null) continue;
            if (n.startsWith("java.lang.ClassNotFoundException: ")) n = n.substring("java.lang.ClassNotFoundException: ".length());
            n = n.trim();
            if (n.isEmpty() || n.contains(" ")) continue; // "X (wrong name: Y)", "Could not initialize class X"
            n = n.replace('.', '/');
            if (inputNames.contains(n)) continue; // present but unusable: that is a failure, not a missing class
            return n;
        }
        return null;
    }

    // ------------------------------------------------------------------ inputs
    static List<Path> readList(String file) throws IOException {
        List<Path> r = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(file), StandardCharsets.UTF_8))
            if (!line.isEmpty()) r.add(Paths.get(line));
        return r;
    }

    static List<Entry> listEntries(Path in) throws IOException {
        List<Entry> r = new ArrayList<>();
        if (Files.isDirectory(in)) {
            List<Path> files;
            try (Stream<Path> s = Files.walk(in)) {
                files = s.filter(p -> p.toString().endsWith(".class") && Files.isRegularFile(p)).sorted()
                         .collect(java.util.stream.Collectors.toList());
            }
            for (Path p : files) {
                StringBuilder sb = new StringBuilder();
                for (Path part : in.relativize(p)) { if (sb.length() > 0) sb.append('/'); sb.append(part); }
                add(r, in, sb.toString());
            }
        } else {
            try (ZipFile z = new ZipFile(in.toFile())) {
                for (Enumeration<? extends ZipEntry> en = z.entries(); en.hasMoreElements(); ) {
                    ZipEntry ze = en.nextElement();
                    if (!ze.isDirectory() && ze.getName().endsWith(".class")) add(r, in, ze.getName());
                }
            }
        }
        return r;
    }

    static void add(List<Entry> r, Path in, String path) {
        if (path.startsWith("META-INF/") || path.equals("module-info.class") || path.endsWith("/module-info.class")) {
            ignored++;
            return;
        }
        r.add(new Entry(path.substring(0, path.length() - ".class".length()), in, path));
    }

    // ------------------------------------------------------------------ output
    static String esc(String name) {
        StringBuilder sb = null;
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            if (ch <= ' ' || ch == '\\' || ch > '~') {
                if (sb == null) sb = new StringBuilder(name.substring(0, i));
                sb.append(String.format("\\u%04x", (int) ch));
            } else if (sb != null) {
                sb.append(ch);
            }
        }
        return sb == null ? name : sb.toString();
    }

    static String oneLine(String s) {
        if (s == null) return "";
        s = s.replace("\r\n", "\n").replace('\r', '\n').replace("\t", " ").trim().replace("\n", " | ");
        if (s.length() > MAX_MESSAGE) s = s.substring(0, MAX_MESSAGE) + " ...(truncated)";
        return s;
    }
}
