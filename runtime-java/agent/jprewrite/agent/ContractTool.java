package jprewrite.agent;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The contract writer outside a running program, for tests and for looking at its output:
 * {@code java -cp <agent jar> jprewrite.agent.ContractTool OUT INPUT...} writes the contract-only
 * form of every class of the inputs (class files, jars, directories) and its holder under
 * {@code OUT}, one line per class on stdout: {@code OK name}, {@code SKIP name: why} (the plan
 * leaves it alone) or {@code FAIL name: why}. Supertypes are answered as at load time: the
 * JDK's classes, and the inputs read as resources.
 */
public final class ContractTool {
    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: ContractTool OUT INPUT...");
            System.exit(2);
        }
        Path out = Paths.get(args[0]);
        PrintStream report = System.out;
        // supertypes as at load time: the JDK's classes, the others read from the inputs
        java.net.URL[] urls = new java.net.URL[args.length - 1];
        for (int i = 1; i < args.length; i++) {
            urls[i - 1] = Paths.get(args[i]).toUri().toURL();
        }
        java.net.URLClassLoader loader = new java.net.URLClassLoader(urls, ClassLoader.getPlatformClassLoader());
        SerialUid.Supertypes supertypes = Transformer.supertypes(loader);
        for (int i = 1; i < args.length; i++) {
            for (byte[] bytes : classes(Paths.get(args[i]))) {
                String name;
                try {
                    name = ClassEditor.parse(bytes).name();
                } catch (RuntimeException e) {
                    report.println("FAIL ?: " + Log.describe(e));
                    continue;
                }
                try {
                    Result r = ContractWriter.write(bytes, supertypes);
                    if (r.status != Result.REWRITTEN) {
                        report.println("SKIP " + name + ": " + r.message);
                        continue;
                    }
                    write(out, name, r.classBytes);
                    for (int k = 0; k < r.extraNames.length; k++) {
                        write(out, r.extraNames[k], r.extraClasses[k]);
                    }
                    report.println("OK " + name);
                } catch (ContractWriter.Unsupported e) {
                    report.println("FAIL " + name + ": " + e.getMessage());
                }
            }
        }
        report.flush();
    }

    private static void write(Path out, String name, byte[] bytes) throws IOException {
        Path p = out.resolve(name + ".class");
        Files.createDirectories(p.getParent());
        Files.write(p, bytes);
    }

    private static List<byte[]> classes(Path input) throws IOException {
        List<byte[]> out = new ArrayList<>();
        if (Files.isDirectory(input)) {
            try (Stream<Path> s = Files.walk(input)) {
                for (Path p : (Iterable<Path>) s.sorted()::iterator) {
                    if (p.toString().endsWith(".class") && Files.isRegularFile(p)) {
                        out.add(Files.readAllBytes(p));
                    }
                }
            }
        } else if (input.toString().endsWith(".class")) {
            out.add(Files.readAllBytes(input));
        } else {
            try (ZipFile zip = new ZipFile(new File(input.toString()))) {
                Enumeration<? extends ZipEntry> entries = zip.entries();
                while (entries.hasMoreElements()) {
                    ZipEntry e = entries.nextElement();
                    if (e.getName().endsWith(".class") && !e.getName().startsWith("META-INF/")) {
                        try (InputStream in = zip.getInputStream(e)) {
                            out.add(in.readAllBytes());
                        }
                    }
                }
            }
        }
        return out;
    }

    private ContractTool() {
    }
}
