package generators;

import java.io.File;
import java.io.FileOutputStream;
import java.lang.reflect.Method;

import javassist.ClassPool;
import javassist.CtClass;
import javassist.CtConstructor;
import javassist.CtField;
import javassist.CtNewMethod;
import net.sf.cglib.proxy.Enhancer;
import net.sf.cglib.proxy.MethodInterceptor;
import org.apache.bcel.Const;
import org.apache.bcel.generic.ClassGen;
import org.apache.bcel.generic.InstructionConst;
import org.apache.bcel.generic.InstructionFactory;
import org.apache.bcel.generic.InstructionHandle;
import org.apache.bcel.generic.InstructionList;
import org.apache.bcel.generic.MethodGen;
import org.apache.bcel.generic.Type;
import org.apache.bcel.generic.BranchInstruction;
import org.apache.bcel.generic.IINC;
import org.apache.bcel.generic.ILOAD;
import org.apache.bcel.generic.ISTORE;

/**
 * Classes generated while the program runs by four bytecode libraries, each with its own writer:
 * Javassist (its own Java compiler and StackMapTable writer), cglib (a proxy through ASM), BCEL
 * (no StackMapTable: a version-49 class) and Janino (a Java compiler of its own, as Spark and
 * Drools use it at run time: version 45.3, finally as JSR/RET subroutines). Each is defined by a loader of the program's, used, and
 * its bytes written to the directory given as the first argument (if any), so that the same
 * classes can be rewritten offline. Prints one line per generator.
 */
public class GenLibs {
    public static class Base {
        public int work(int n) {
            int s = 0;
            for (int i = 0; i < n; i++) s += i * i;
            return s;
        }
    }

    static final class Loader extends ClassLoader {
        Loader() {
            super(GenLibs.class.getClassLoader());
        }

        Class<?> define(String name, byte[] b) {
            return defineClass(name, b, 0, b.length);
        }
    }

    static File out;

    static void save(String name, byte[] b) throws Exception {
        if (out == null) return;
        File f = new File(out, name.replace('.', '/') + ".class");
        f.getParentFile().mkdirs();
        try (FileOutputStream o = new FileOutputStream(f)) {
            o.write(b);
        }
    }

    static byte[] javassist() throws Exception {
        ClassPool pool = new ClassPool(true);
        CtClass cc = pool.makeClass("generated.Jv");
        cc.addField(CtField.make("private int base;", cc));
        CtConstructor ctor = new CtConstructor(new CtClass[] {CtClass.intType}, cc);
        ctor.setBody("{ super(); this.base = $1 > 0 ? $1 : -$1; }");
        cc.addConstructor(ctor);
        cc.addMethod(CtNewMethod.make("public int loop(int x) { int s = base; for (int i = 0; i < x; i++) {"
                + " try { s += 10 / (i % 3); } catch (ArithmeticException e) { s--; } finally { s++; } }"
                + " return s; }", cc));
        cc.addMethod(CtNewMethod.make("public String name(int x) { switch (x % 4) { case 0: return \"zero\";"
                + " case 1: return \"one\" + x; default: return String.valueOf(x * base); } }", cc));
        cc.addMethod(CtNewMethod.make("public static long total(int n) { long t = 0L; generated.Jv j = new generated.Jv(n);"
                + " for (int i = 0; i < n; i++) { t = t * 31L + j.loop(i) + j.name(i).length(); } return t; }", cc));
        return cc.toBytecode();
    }

    static byte[] bcel() {
        ClassGen cg = new ClassGen("generated.Bc", "java.lang.Object", "<generated>", Const.ACC_PUBLIC | Const.ACC_SUPER,
                null);
        cg.setMajor(49);
        cg.setMinor(0);
        cg.addEmptyConstructor(Const.ACC_PUBLIC);
        InstructionFactory f = new InstructionFactory(cg);
        // static int sum(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }
        InstructionList il = new InstructionList();
        MethodGen mg = new MethodGen(Const.ACC_PUBLIC | Const.ACC_STATIC, Type.INT, new Type[] {Type.INT},
                new String[] {"n"}, "sum", "generated.Bc", il, cg.getConstantPool());
        il.append(InstructionConst.ICONST_0);
        il.append(new ISTORE(1));
        il.append(InstructionConst.ICONST_0);
        il.append(new ISTORE(2));
        BranchInstruction toCond = InstructionFactory.createBranchInstruction(Const.GOTO, null);
        il.append(toCond);
        InstructionHandle body = il.append(new ILOAD(1));
        il.append(new ILOAD(2));
        il.append(InstructionConst.IADD);
        il.append(new ISTORE(1));
        il.append(new IINC(2, 1));
        InstructionHandle cond = il.append(new ILOAD(2));
        il.append(new ILOAD(0));
        il.append(InstructionFactory.createBranchInstruction(Const.IF_ICMPLT, body));
        toCond.setTarget(cond);
        il.append(new ILOAD(1));
        il.append(InstructionConst.IRETURN);
        mg.setMaxStack();
        mg.setMaxLocals();
        cg.addMethod(mg.getMethod());
        il.dispose();
        return cg.getJavaClass().getBytes();
    }

    /** Janino 2.7 compiles this to one version-45.3 class: a subroutine per finally, jumps out of them. */
    static final String JANINO_SOURCE = "package generated; public class Jn {"
            + " public static long loop(int n) { long s = 0; for (int i = 0; i < n; i++) {"
            + " try { if (i % 5 == 0) continue; s += i * 7 % 13; } finally { s ^= i; } } return s; }"
            + " public static String lock(Object o, int n) { synchronized (o) { return String.valueOf(o) + loop(n); } }"
            + " public static int pick(int x) { switch (x) { case 1: return 10; case 7: return 70;"
            + " case 1000: return -1; default: return x; } } }";

    static byte[] janino() throws Exception {
        org.codehaus.janino.Java.CompilationUnit unit = new org.codehaus.janino.Parser(
                new org.codehaus.janino.Scanner(null, new java.io.StringReader(JANINO_SOURCE))).parseCompilationUnit();
        org.codehaus.janino.util.ClassFile[] files = new org.codehaus.janino.UnitCompiler(unit,
                new org.codehaus.janino.ClassLoaderIClassLoader(GenLibs.class.getClassLoader()))
                .compileUnit(true, true, true);
        return files[0].toByteArray();
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0) out = new File(args[0]);
        Loader loader = new Loader();
        byte[] jv = javassist();
        save("generated.Jv", jv);
        Class<?> jvc = loader.define("generated.Jv", jv);
        System.out.println("javassist " + jvc.getMethod("total", int.class).invoke(null, 12));

        byte[] bc = bcel();
        save("generated.Bc", bc);
        Class<?> bcc = loader.define("generated.Bc", bc);
        System.out.println("bcel " + bcc.getMethod("sum", int.class).invoke(null, 100));

        byte[] jn = janino();
        save("generated.Jn", jn);
        Class<?> jnc = loader.define("generated.Jn", jn);
        int picks = 0;
        for (int x : new int[] {1, 7, 1000, 3}) picks = picks * 31 + (Integer) jnc.getMethod("pick", int.class).invoke(null, x);
        System.out.println("janino " + jnc.getMethod("lock", Object.class, int.class).invoke(null, "x", 1000) + " " + picks);

        Enhancer e = new Enhancer();
        e.setSuperclass(Base.class);
        e.setUseCache(false);
        e.setClassLoader(loader);
        e.setCallback((MethodInterceptor) (obj, method, a, proxy) ->
                method.getName().equals("work") ? (Integer) proxy.invokeSuper(obj, a) + 1000 : proxy.invokeSuper(obj, a));
        Base b = (Base) e.create();
        System.out.println("cglib " + b.work(10) + " " + b.getClass().getSuperclass().getSimpleName());
    }
}
