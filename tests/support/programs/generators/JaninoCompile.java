package generators;

import java.io.FileReader;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import org.codehaus.janino.ClassLoaderIClassLoader;
import org.codehaus.janino.Java;
import org.codehaus.janino.Parser;
import org.codehaus.janino.Scanner;
import org.codehaus.janino.UnitCompiler;
import org.codehaus.janino.util.ClassFile;

/**
 * Janino as a batch compiler on a modern JDK: {@code JaninoCompile OUT-DIR SOURCE...}. Janino's own
 * command line reads the JDK's classes as class files and stops at JDK 17's (it knows no
 * invokedynamic constants); this resolves them through the running class loader instead.
 */
public class JaninoCompile {
    public static void main(String[] args) throws Exception {
        Path out = Paths.get(args[0]);
        ClassLoaderIClassLoader classes = new ClassLoaderIClassLoader(JaninoCompile.class.getClassLoader());
        for (int i = 1; i < args.length; i++) {
            try (Reader r = new FileReader(args[i])) {
                Java.CompilationUnit unit = new Parser(new Scanner(args[i], r)).parseCompilationUnit();
                for (ClassFile cf : new UnitCompiler(unit, classes).compileUnit(true, true, true)) {
                    Path p = out.resolve(cf.getThisClassName().replace('.', '/') + ".class");
                    Files.createDirectories(p.getParent());
                    Files.write(p, cf.toByteArray());
                }
            }
        }
    }
}
