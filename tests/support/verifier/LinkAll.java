/*
 * LinkAll: loads and links classes through the application class loader, for the agent sweep
 * (tests/support/sweep_jars.py --agent).
 *
 * Usage:  java -Xverify:all [-javaagent:...] -cp <this directory>:<jars...> LinkAll NAMES-FILE
 *
 * VerifyAll defines its inputs in a URLClassLoader of its own, whose parent is the platform
 * loader: the load-time agent leaves the classes of such an isolating loader as they are, so a
 * sweep under the agent needs the classes on the class path itself, where the agent rewrites
 * them. Each name of NAMES-FILE (binary names, a.b.C, one a line, UTF-8) is loaded with
 * Class.forName(name, false, the system loader) and linked with getFields() (which verifies
 * without initialising: see VerifyAll). Output on stdout, one line a class:
 *   OK <name> <rewritten>        rewritten: 1 when the class declares $jprewrite$instrumented
 *                                (the field every class the rewriter instruments gets), else 0
 *   FAIL <name> <Exception>: <message on one line>
 *   DONE <count>
 * The program's own System.out goes to stderr (a static initialiser never runs, but a transformer
 * or the agent may print).
 */
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;

public final class LinkAll {
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, "UTF-8");
        System.setOut(System.err);
        List<String> names = Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8);
        ClassLoader loader = ClassLoader.getSystemClassLoader();
        int count = 0;
        for (String name : names) {
            if (name.isEmpty()) {
                continue;
            }
            count++;
            try {
                Class<?> c = Class.forName(name, false, loader);
                c.getFields(); // links: verifies, without initialising
                int rewritten = 0;
                try {
                    c.getDeclaredField("$jprewrite$instrumented");
                    rewritten = 1;
                } catch (NoSuchFieldException absent) {
                    rewritten = 0;
                } catch (Throwable other) {
                    rewritten = 2; // the declared fields' types cannot be resolved: unknown
                }
                out.println("OK " + name + " " + rewritten);
            } catch (Throwable t) {
                String message = String.valueOf(t.getMessage()).replace('\n', ' ').replace('\r', ' ');
                out.println("FAIL " + name + " " + t.getClass().getName() + ": " + message);
            }
        }
        out.println("DONE " + count);
        out.flush();
    }
}
