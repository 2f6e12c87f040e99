import static org.objectweb.asm.Opcodes.*;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;

/**
 * Writes a jar of classes generated with ASM the way JVM-language compilers generate them, each a
 * corner of the class-file format that javac never produces:
 *
 * <pre>java -cp asm.jar:. GenDeadCode OUT.jar</pre>
 *
 * <ul>
 * <li>{@code deadcode/*}, {@code deadcode50/*}, {@code deadcode61/*}: the same cases in class files of
 * version 52, 50 and 61, written by {@code ClassWriter(COMPUTE_FRAMES)}. ASM replaces every unreachable
 * basic block by {@code nop ... nop athrow} with a frame of no locals and {@code [java/lang/Throwable]} on
 * the stack, and cuts unreachable code out of exception ranges (a range over dead code only disappears,
 * and so its handler becomes dead too). Each case class has the body in five shapes: {@code static s(I)I},
 * {@code i(I)I}, {@code synchronized m(I)I}, the constructor {@code <init>(I)V} (after {@code super()},
 * result in field {@code v}) and {@code <clinit>} (x = 7, result in static {@code V}).</li>
 * <li>{@code deadcode/Honest}: dead code that keeps its instructions, with true frames (written with
 * explicit {@code visitFrame}, as a compiler that does not use COMPUTE_FRAMES would): values and
 * uninitialized objects on the stack of a dead block, a dead loop, dead code falling into live code, a
 * handler reached only from dead code, a dead second {@code super()} in a constructor.</li>
 * <li>{@code deadcode/Jsr}: version 49 (no StackMapTable), subroutines: JSR/RET finally, nested and
 * shared subroutines, a subroutine in a loop, subroutines that leave by ireturn/athrow, {@code wide ret},
 * and dead code that the old verifier never looks at.</li>
 * <li>{@code deadcode/Main}: runs every reachable part with several arguments, prints one line per case
 * with a running checksum and a last line {@code checksum N}.</li>
 * </ul>
 *
 * Every class verifies (HotSpot -Xverify:all, ASM's analyzer) before any rewriting. An exception range
 * that is empty (start == end) cannot be had: ASM writes it and HotSpot rejects the class
 * (ClassFormatError: Illegal exception table range), so no case has one.
 */
public final class GenDeadCode {

    static final int[] XS = {0, 1, 2, 3, 5, 7, 10, -4};
    static final String SB = "java/lang/StringBuilder";
    static final String T = "java/lang/Throwable";

    /** Emits the code that returns the int on top of the stack (ireturn, or a store and return). */
    interface Ret {
        void emit(MethodVisitor mv);
    }

    /** A method body computing an int from the int in local {@code x}; locals from {@code f} are free. */
    interface Body {
        void emit(Gen g, MethodVisitor mv, int x, int f, Ret ret);
    }

    /** The generation context of one class: its name and version. */
    static final class Gen {
        final String cls;
        final int version;

        Gen(String cls, int version) {
            this.cls = cls;
            this.version = version;
        }
    }

    static final class Writer extends ClassWriter {
        Writer(int flags) {
            super(flags);
        }

        @Override
        protected String getCommonSuperClass(String a, String b) {
            if (a.startsWith("deadcode") || b.startsWith("deadcode"))
                return "java/lang/Object";
            try {
                return super.getCommonSuperClass(a, b);
            } catch (RuntimeException e) {
                return "java/lang/Object";
            }
        }
    }

    static final Handle CONCAT = new Handle(H_INVOKESTATIC, "java/lang/invoke/StringConcatFactory",
            "makeConcatWithConstants", "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;"
            + "Ljava/lang/invoke/MethodType;Ljava/lang/String;[Ljava/lang/Object;)Ljava/lang/invoke/CallSite;", false);

    // ------------------------------------------------------------------ the bodies (COMPUTE_FRAMES)
    static final Map<String, Body> BODIES = new LinkedHashMap<>();

    static {
        // unreachable code after goto: ASM leaves nop...athrow with a [Throwable] frame; the target of the
        // goto follows it
        BODIES.put("AfterGoto", (g, mv, x, f, ret) -> {
            Label l = new Label();
            mv.visitVarInsn(ILOAD, x);
            mv.visitVarInsn(ISTORE, f);
            mv.visitJumpInsn(GOTO, l);
            mv.visitIincInsn(f, 5);
            mv.visitVarInsn(ILOAD, f);
            mv.visitInsn(ICONST_2);
            mv.visitInsn(IMUL);
            mv.visitVarInsn(ISTORE, f);
            println(mv, "dead");
            mv.visitLabel(l);
            mv.visitVarInsn(ILOAD, f);
            mv.visitInsn(ICONST_3);
            mv.visitInsn(IADD);
            ret.emit(mv);
        });
        // code after the last return: the method ends in a dead nop...athrow
        BODIES.put("AfterReturn", (g, mv, x, f, ret) -> {
            mv.visitVarInsn(ILOAD, x);
            mv.visitInsn(ICONST_1);
            mv.visitInsn(IADD);
            ret.emit(mv);
            mv.visitVarInsn(ILOAD, x);
            mv.visitMethodInsn(INVOKESTATIC, "java/lang/Math", "abs", "(I)I", false);
            ret.emit(mv);
        });
        // dead code after athrow inside a try range: ASM splits the range around it
        BODIES.put("AfterAthrow", (g, mv, x, f, ret) -> {
            Label ts = new Label(), te = new Label(), h = new Label();
            mv.visitTryCatchBlock(ts, te, h, "java/lang/IllegalStateException");
            mv.visitLabel(ts);
            mv.visitTypeInsn(NEW, "java/lang/IllegalStateException");
            mv.visitInsn(DUP);
            mv.visitLdcInsn("boom");
            mv.visitMethodInsn(INVOKESPECIAL, "java/lang/IllegalStateException", "<init>", "(Ljava/lang/String;)V", false);
            mv.visitInsn(ATHROW);
            mv.visitVarInsn(ILOAD, x);
            mv.visitInsn(ICONST_5);
            mv.visitInsn(IMUL);
            mv.visitVarInsn(ISTORE, f);
            mv.visitVarInsn(ILOAD, f);
            ret.emit(mv);
            mv.visitLabel(te);
            mv.visitLabel(h);
            mv.visitMethodInsn(INVOKEVIRTUAL, T, "getMessage", "()Ljava/lang/String;", false);
            mv.visitMethodInsn(INVOKEVIRTUAL, "java/lang/String", "length", "()I", false);
            mv.visitVarInsn(ILOAD, x);
            mv.visitInsn(IADD);
            ret.emit(mv);
        });
        // dead code full of invokes, new, field accesses, casts, a switch and a loop of its own
        BODIES.put("DeadRich", (g, mv, x, f, ret) -> {
            Label l = new Label(), d = new Label(), d2 = new Label();
            mv.visitVarInsn(ILOAD, x);
            mv.visitVarInsn(ISTORE, f);
            mv.visitJumpInsn(GOTO, l);
            mv.visitLabel(d);
            mv.visitTypeInsn(NEW, "java/util/ArrayList");
            mv.visitInsn(DUP);
            mv.visitMethodInsn(INVOKESPECIAL, "java/util/ArrayList", "<init>", "()V", false);
            mv.visitVarInsn(ASTORE, f + 1);
            mv.visitVarInsn(ALOAD, f + 1);
            mv.visitMethodInsn(INVOKEINTERFACE, "java/util/List", "size", "()I", true);
            mv.visitVarInsn(ISTORE, f);
            mv.visitFieldInsn(GETSTATIC, g.cls, "V", "I");
            mv.visitInsn(ICONST_1);
            mv.visitInsn(IADD);
            mv.visitFieldInsn(PUTSTATIC, g.cls, "V", "I");
            mv.visitVarInsn(ALOAD, f + 1);
            mv.visitTypeInsn(CHECKCAST, "java/util/List");
            mv.visitTypeInsn(INSTANCEOF, "java/util/RandomAccess");
            mv.visitInsn(POP);
            mv.visitInsn(ICONST_2);
            mv.visitInsn(ICONST_3);
            mv.visitMultiANewArrayInsn("[[I", 2);
            mv.visitInsn(POP);
            if (g.version >= V1_7) {
                mv.visitVarInsn(ILOAD, f);
                mv.visitInvokeDynamicInsn("makeConcatWithConstants", "(I)Ljava/lang/String;", CONCAT, "n=\u0001");
                mv.visitInsn(POP);
            }
            mv.visitVarInsn(ILOAD, f);
            mv.visitTableSwitchInsn(0, 2, d, d, d2, l);
            mv.visitLabel(d2);
            mv.visitIincInsn(f, 1);
            mv.visitJumpInsn(GOTO, d);
            mv.visitLabel(l);
            if (g.version >= V1_7) { // a live invokedynamic too
                mv.visitVarInsn(ILOAD, f);
                mv.visitInvokeDynamicInsn("makeConcatWithConstants", "(I)Ljava/lang/String;", CONCAT, "n=\u0001");
                mv.visitMethodInsn(INVOKEVIRTUAL, "java/lang/String", "length", "()I", false);
                mv.visitVarInsn(ILOAD, f);
                mv.visitInsn(IADD);
                mv.visitVarInsn(ISTORE, f);
            }
            mv.visitVarInsn(ILOAD, f);
            ret.emit(mv);
        });
        // an exception range over dead code only: ASM drops the range, and its handler is dead as well
        BODIES.put("HandlerOnlyDead", (g, mv, x, f, ret) -> {
            Label l = new Label(), ds = new Label(), de = new Label(), h = new Label();
            mv.visitTryCatchBlock(ds, de, h, "java/lang/ArithmeticException");
            mv.visitJumpInsn(GOTO, l);
            mv.visitLabel(ds);
            mv.visitVarInsn(ILOAD, x);
            mv.visitInsn(ICONST_0);
            mv.visitInsn(IDIV);
            mv.visitVarInsn(ISTORE, f);
            mv.visitLabel(de);
            mv.visitLabel(h);
            mv.visitInsn(POP);
            mv.visitInsn(ICONST_M1);
            ret.emit(mv);
            mv.visitLabel(l);
            mv.visitVarInsn(ILOAD, x);
            mv.visitInsn(ICONST_2);
            mv.visitInsn(IADD);
            ret.emit(mv);
        });
        // a handler that is never taken: its range holds only instructions that cannot throw
        BODIES.put("HandlerNeverTaken", (g, mv, x, f, ret) -> {
            Label ts = new Label(), te = new Label(), h = new Label(), l = new Label();
            mv.visitTryCatchBlock(ts, te, h, null);
            mv.visitLabel(ts);
            mv.visitVarInsn(ILOAD, x);
            mv.visitInsn(ICONST_1);
            mv.visitInsn(IADD);
            mv.visitVarInsn(ISTORE, f);
            mv.visitLabel(te);
            mv.visitJumpInsn(GOTO, l);
            mv.visitLabel(h);
            mv.visitVarInsn(ASTORE, f + 1);
            mv.visitInsn(ICONST_M1);
            mv.visitVarInsn(ISTORE, f);
            mv.visitLabel(l);
            mv.visitVarInsn(ILOAD, f);
            ret.emit(mv);
        });
        // one new, its <init> reached on two paths
        BODIES.put("NewInitTwoPaths", (g, mv, x, f, ret) -> {
            Label a = new Label(), j = new Label();
            mv.visitTypeInsn(NEW, SB);
            mv.visitInsn(DUP);
            mv.visitVarInsn(ILOAD, x);
            mv.visitJumpInsn(IFEQ, a);
            mv.visitLdcInsn("pos");
            mv.visitMethodInsn(INVOKESPECIAL, SB, "<init>", "(Ljava/lang/String;)V", false);
            mv.visitJumpInsn(GOTO, j);
            mv.visitLabel(a);
            mv.visitLdcInsn("zero");
            mv.visitMethodInsn(INVOKESPECIAL, SB, "<init>", "(Ljava/lang/String;)V", false);
            mv.visitLabel(j);
            mv.visitVarInsn(ILOAD, x);
            mv.visitMethodInsn(INVOKEVIRTUAL, SB, "append", "(I)Ljava/lang/StringBuilder;", false);
            mv.visitMethodInsn(INVOKEVIRTUAL, SB, "toString", "()Ljava/lang/String;", false);
            mv.visitMethodInsn(INVOKEVIRTUAL, "java/lang/String", "length", "()I", false);
            ret.emit(mv);
        });
        // uninitialized objects on the stack across a branch and its join
        BODIES.put("UninitAcrossBranch", (g, mv, x, f, ret) -> {
            Label a = new Label(), j = new Label();
            mv.visitTypeInsn(NEW, SB);
            mv.visitInsn(DUP);
            mv.visitVarInsn(ILOAD, x);
            mv.visitInsn(ICONST_2);
            mv.visitInsn(IREM);
            mv.visitJumpInsn(IFEQ, a);
            mv.visitLdcInsn("odd");
            mv.visitJumpInsn(GOTO, j);
            mv.visitLabel(a);
            mv.visitLdcInsn("even!");
            mv.visitLabel(j);
            mv.visitMethodInsn(INVOKESPECIAL, SB, "<init>", "(Ljava/lang/String;)V", false);
            mv.visitMethodInsn(INVOKEVIRTUAL, SB, "length", "()I", false);
            mv.visitVarInsn(ILOAD, x);
            mv.visitInsn(IADD);
            ret.emit(mv);
        });
        // uninitialized objects on the stack around a loop (a backward branch with them on the stack)
        BODIES.put("UninitAcrossLoop", (g, mv, x, f, ret) -> {
            Label l = new Label();
            mv.visitInsn(ICONST_0);
            mv.visitVarInsn(ISTORE, f);
            mv.visitTypeInsn(NEW, SB);
            mv.visitInsn(DUP);
            mv.visitLabel(l);
            mv.visitIincInsn(f, 1);
            mv.visitVarInsn(ILOAD, f);
            mv.visitVarInsn(ILOAD, x);
            mv.visitInsn(ICONST_3);
            mv.visitInsn(IAND);
            mv.visitJumpInsn(IF_ICMPLE, l);
            mv.visitLdcInsn("loop");
            mv.visitMethodInsn(INVOKESPECIAL, SB, "<init>", "(Ljava/lang/String;)V", false);
            mv.visitMethodInsn(INVOKEVIRTUAL, SB, "length", "()I", false);
            mv.visitVarInsn(ILOAD, f);
            mv.visitInsn(IADD);
            ret.emit(mv);
        });
        // an uninitialized object kept in a local, initialised on either of two paths
        BODIES.put("UninitInLocal", (g, mv, x, f, ret) -> {
            Label a = new Label(), j = new Label();
            mv.visitTypeInsn(NEW, SB);
            mv.visitVarInsn(ASTORE, f);
            mv.visitVarInsn(ILOAD, x);
            mv.visitJumpInsn(IFEQ, a);
            mv.visitVarInsn(ALOAD, f);
            mv.visitLdcInsn("a");
            mv.visitMethodInsn(INVOKESPECIAL, SB, "<init>", "(Ljava/lang/String;)V", false);
            mv.visitJumpInsn(GOTO, j);
            mv.visitLabel(a);
            mv.visitVarInsn(ALOAD, f);
            mv.visitLdcInsn("bbb");
            mv.visitMethodInsn(INVOKESPECIAL, SB, "<init>", "(Ljava/lang/String;)V", false);
            mv.visitLabel(j);
            mv.visitVarInsn(ALOAD, f);
            mv.visitMethodInsn(INVOKEVIRTUAL, SB, "length", "()I", false);
            ret.emit(mv);
        });
        // locals reused with other types: int, double over two slots, a long over half of it, a String,
        // and a slot that is an int on one path and a String on the other (top at the join)
        BODIES.put("LocalsReused", (g, mv, x, f, ret) -> {
            Label a = new Label(), j = new Label();
            mv.visitVarInsn(ILOAD, x);
            mv.visitVarInsn(ISTORE, f);
            mv.visitVarInsn(ILOAD, f);
            mv.visitInsn(I2D);
            mv.visitVarInsn(DSTORE, f);
            mv.visitVarInsn(DLOAD, f);
            mv.visitInsn(D2I);
            mv.visitVarInsn(ISTORE, f + 2);
            mv.visitVarInsn(DLOAD, f);
            mv.visitInsn(DCONST_1);
            mv.visitInsn(DADD);
            mv.visitInsn(D2L);
            mv.visitVarInsn(LSTORE, f + 1);
            mv.visitVarInsn(LLOAD, f + 1);
            mv.visitInsn(L2I);
            mv.visitVarInsn(ISTORE, f);
            mv.visitVarInsn(ILOAD, x);
            mv.visitJumpInsn(IFEQ, a);
            mv.visitLdcInsn("str");
            mv.visitVarInsn(ASTORE, f + 3);
            mv.visitJumpInsn(GOTO, j);
            mv.visitLabel(a);
            mv.visitVarInsn(ILOAD, x);
            mv.visitVarInsn(ISTORE, f + 3);
            mv.visitLabel(j);
            mv.visitVarInsn(ILOAD, f);
            mv.visitLdcInsn("xyz");
            mv.visitVarInsn(ASTORE, f + 3);
            mv.visitVarInsn(ALOAD, f + 3);
            mv.visitMethodInsn(INVOKEVIRTUAL, "java/lang/String", "length", "()I", false);
            mv.visitInsn(IADD);
            mv.visitVarInsn(LLOAD, f + 1);
            mv.visitInsn(L2I);
            mv.visitInsn(IADD);
            ret.emit(mv);
        });
        // overlapping and nested exception ranges, first match wins: x = 5 divides by zero (inner
        // handler), x = 7 dereferences null, x = 10 throws an Error (catch-all)
        BODIES.put("Ranges", (g, mv, x, f, ret) -> {
            Label a = new Label(), b = new Label(), c = new Label(), c2 = new Label(), d = new Label();
            Label h1 = new Label(), h2 = new Label(), h3 = new Label(), h4 = new Label(), out = new Label();
            mv.visitTryCatchBlock(b, c, h4, "java/lang/ArithmeticException");
            mv.visitTryCatchBlock(a, c, h1, "java/lang/ArithmeticException");
            mv.visitTryCatchBlock(b, d, h2, "java/lang/RuntimeException");
            mv.visitTryCatchBlock(a, d, h3, null);
            mv.visitInsn(ICONST_0);
            mv.visitVarInsn(ISTORE, f);
            mv.visitLabel(a);
            mv.visitVarInsn(ILOAD, x);
            mv.visitInsn(ICONST_3);
            mv.visitInsn(IADD);
            mv.visitVarInsn(ISTORE, f);
            mv.visitLabel(b);
            mv.visitIntInsn(BIPUSH, 100);
            mv.visitVarInsn(ILOAD, x);
            mv.visitInsn(ICONST_5);
            mv.visitInsn(ISUB);
            mv.visitInsn(IDIV);
            mv.visitVarInsn(ISTORE, f);
            mv.visitLabel(c);
            mv.visitVarInsn(ILOAD, x);
            mv.visitIntInsn(BIPUSH, 7);
            mv.visitJumpInsn(IF_ICMPNE, c2);
            mv.visitInsn(ACONST_NULL);
            mv.visitInsn(ARRAYLENGTH);
            mv.visitVarInsn(ISTORE, f);
            mv.visitLabel(c2);
            mv.visitVarInsn(ILOAD, x);
            mv.visitIntInsn(BIPUSH, 10);
            mv.visitJumpInsn(IF_ICMPNE, d);
            mv.visitTypeInsn(NEW, "java/lang/Error");
            mv.visitInsn(DUP);
            mv.visitMethodInsn(INVOKESPECIAL, "java/lang/Error", "<init>", "()V", false);
            mv.visitInsn(ATHROW);
            mv.visitLabel(d);
            mv.visitJumpInsn(GOTO, out);
            int[] codes = {11, 22, 33, 44};
            Label[] hs = {h1, h2, h3, h4};
            for (int i = 0; i < 4; i++) {
                mv.visitLabel(hs[i]);
                mv.visitInsn(POP);
                mv.visitIntInsn(BIPUSH, codes[i]);
                mv.visitVarInsn(ILOAD, f);
                mv.visitInsn(IADD);
                mv.visitVarInsn(ISTORE, f);
                mv.visitJumpInsn(GOTO, out);
            }
            mv.visitLabel(out);
            mv.visitVarInsn(ILOAD, f);
            ret.emit(mv);
        });
        // a handler placed before its range, and a handler inside its own range (a retry loop)
        BODIES.put("OddHandlers", (g, mv, x, f, ret) -> {
            Label t = new Label(), ok = new Label(), te = new Label(), h = new Label();
            Label r = new Label(), h2 = new Label(), done = new Label(), re = new Label();
            mv.visitTryCatchBlock(t, te, h, "java/lang/RuntimeException");
            mv.visitTryCatchBlock(r, re, h2, "java/lang/RuntimeException");
            mv.visitInsn(ICONST_0);
            mv.visitVarInsn(ISTORE, f);
            mv.visitJumpInsn(GOTO, t);
            mv.visitLabel(h);
            mv.visitInsn(POP);
            mv.visitIincInsn(f, 1);
            mv.visitLabel(t);
            mv.visitVarInsn(ILOAD, f);
            mv.visitInsn(ICONST_3);
            mv.visitJumpInsn(IF_ICMPGE, ok);
            throwNew(mv, "java/lang/RuntimeException");
            mv.visitLabel(ok);
            mv.visitVarInsn(ILOAD, f);
            mv.visitVarInsn(ISTORE, f);
            mv.visitLabel(te);
            mv.visitInsn(ICONST_0);
            mv.visitVarInsn(ISTORE, f + 1);
            mv.visitLabel(r);
            mv.visitIincInsn(f + 1, 1);
            mv.visitVarInsn(ILOAD, f + 1);
            mv.visitInsn(ICONST_2);
            mv.visitJumpInsn(IF_ICMPGE, done);
            throwNew(mv, "java/lang/RuntimeException");
            mv.visitLabel(h2);
            mv.visitInsn(POP);
            mv.visitJumpInsn(GOTO, r);
            mv.visitLabel(done);
            mv.visitVarInsn(ILOAD, f);
            mv.visitVarInsn(ILOAD, f + 1);
            mv.visitInsn(IADD);
            mv.visitVarInsn(ILOAD, x);
            mv.visitInsn(IADD);
            mv.visitLabel(re);
            ret.emit(mv);
        });
        // values live under call sites: foo(a, new StringBuilder(..).length()), longs, doubles and
        // uninitialized objects under calls, a call in a try range that throws (x = 5)
        BODIES.put("StackAcrossCalls", (g, mv, x, f, ret) -> {
            Label ts = new Label(), te = new Label(), h = new Label(), out = new Label();
            mv.visitTryCatchBlock(ts, te, h, "java/lang/ArithmeticException");
            mv.visitVarInsn(ILOAD, x);
            mv.visitTypeInsn(NEW, SB);
            mv.visitInsn(DUP);
            mv.visitVarInsn(ILOAD, x);
            mv.visitMethodInsn(INVOKESTATIC, "java/lang/String", "valueOf", "(I)Ljava/lang/String;", false);
            mv.visitMethodInsn(INVOKESPECIAL, SB, "<init>", "(Ljava/lang/String;)V", false);
            mv.visitMethodInsn(INVOKEVIRTUAL, SB, "length", "()I", false);
            mv.visitMethodInsn(INVOKESTATIC, g.cls, "add", "(II)I", false);
            mv.visitVarInsn(ISTORE, f);
            mv.visitVarInsn(ILOAD, x);
            mv.visitInsn(I2L);
            mv.visitVarInsn(ILOAD, x);
            mv.visitMethodInsn(INVOKESTATIC, g.cls, "sq", "(I)I", false);
            mv.visitInsn(I2L);
            mv.visitInsn(LADD);
            mv.visitInsn(L2I);
            mv.visitVarInsn(ILOAD, f);
            mv.visitInsn(IADD);
            mv.visitVarInsn(ISTORE, f);
            mv.visitInsn(DCONST_1);
            mv.visitVarInsn(ILOAD, x);
            mv.visitMethodInsn(INVOKESTATIC, g.cls, "sq", "(I)I", false);
            mv.visitInsn(I2D);
            mv.visitInsn(DADD);
            mv.visitInsn(D2I);
            mv.visitVarInsn(ILOAD, f);
            mv.visitInsn(IADD);
            mv.visitVarInsn(ISTORE, f);
            mv.visitTypeInsn(NEW, SB);
            mv.visitInsn(DUP);
            mv.visitVarInsn(ILOAD, x);
            mv.visitMethodInsn(INVOKESTATIC, g.cls, "sq", "(I)I", false);
            mv.visitMethodInsn(INVOKESTATIC, "java/lang/String", "valueOf", "(I)Ljava/lang/String;", false);
            mv.visitMethodInsn(INVOKESPECIAL, SB, "<init>", "(Ljava/lang/String;)V", false);
            mv.visitMethodInsn(INVOKEVIRTUAL, SB, "length", "()I", false);
            mv.visitVarInsn(ILOAD, f);
            mv.visitInsn(IADD);
            mv.visitVarInsn(ISTORE, f);
            mv.visitLabel(ts);
            mv.visitVarInsn(ILOAD, f);
            mv.visitVarInsn(ILOAD, x);
            mv.visitInsn(ICONST_5);
            mv.visitInsn(ISUB);
            mv.visitMethodInsn(INVOKESTATIC, g.cls, "inv", "(I)I", false);
            mv.visitInsn(IADD);
            mv.visitVarInsn(ISTORE, f);
            mv.visitLabel(te);
            mv.visitJumpInsn(GOTO, out);
            mv.visitLabel(h);
            mv.visitInsn(POP);
            mv.visitIincInsn(f, 1000);
            mv.visitLabel(out);
            mv.visitVarInsn(ILOAD, f);
            ret.emit(mv);
        });
        // dead code between switch cases, and switches
        BODIES.put("SwitchDead", (g, mv, x, f, ret) -> {
            Label c0 = new Label(), c1 = new Label(), c2 = new Label(), c3 = new Label(), dflt = new Label();
            Label k1 = new Label(), k2 = new Label(), out = new Label();
            mv.visitInsn(ICONST_0);
            mv.visitVarInsn(ISTORE, f);
            mv.visitVarInsn(ILOAD, x);
            mv.visitInsn(ICONST_3);
            mv.visitInsn(IAND);
            mv.visitTableSwitchInsn(0, 3, dflt, c0, c1, c2, c3);
            mv.visitLabel(c0);
            mv.visitInsn(ICONST_1);
            mv.visitVarInsn(ISTORE, f);
            mv.visitJumpInsn(GOTO, out);
            mv.visitInsn(ICONST_2); // dead
            mv.visitVarInsn(ISTORE, f);
            mv.visitJumpInsn(GOTO, out);
            mv.visitLabel(c1);
            mv.visitInsn(ICONST_5);
            mv.visitVarInsn(ISTORE, f);
            mv.visitJumpInsn(GOTO, out);
            mv.visitLabel(c2);
            mv.visitVarInsn(ILOAD, x);
            mv.visitLookupSwitchInsn(out, new int[] {-4, 10}, new Label[] {k1, k2});
            mv.visitLabel(k1);
            mv.visitIntInsn(BIPUSH, 40);
            mv.visitVarInsn(ISTORE, f);
            mv.visitJumpInsn(GOTO, out);
            mv.visitLabel(k2);
            mv.visitIntInsn(BIPUSH, 100);
            mv.visitVarInsn(ISTORE, f);
            mv.visitJumpInsn(GOTO, out);
            mv.visitIincInsn(f, 1); // dead
            mv.visitLabel(c3);
            mv.visitLabel(dflt);
            mv.visitIntInsn(BIPUSH, 9);
            mv.visitVarInsn(ISTORE, f);
            mv.visitLabel(out);
            mv.visitVarInsn(ILOAD, f);
            ret.emit(mv);
        });
        // dead code in the middle of a try range (ASM splits the exception table entry in two)
        BODIES.put("DeadInTry", (g, mv, x, f, ret) -> {
            Label ts = new Label(), m = new Label(), te = new Label(), h = new Label(), out = new Label();
            mv.visitTryCatchBlock(ts, te, h, "java/lang/ArithmeticException");
            mv.visitLabel(ts);
            mv.visitIntInsn(BIPUSH, 100);
            mv.visitVarInsn(ILOAD, x);
            mv.visitInsn(ICONST_5);
            mv.visitInsn(ISUB);
            mv.visitInsn(IDIV);
            mv.visitVarInsn(ISTORE, f);
            mv.visitJumpInsn(GOTO, m);
            mv.visitInsn(ICONST_0); // dead
            mv.visitVarInsn(ISTORE, f);
            mv.visitVarInsn(ILOAD, f);
            ret.emit(mv);
            mv.visitLabel(m);
            mv.visitVarInsn(ILOAD, f);
            mv.visitVarInsn(ILOAD, x);
            mv.visitInsn(IADD);
            mv.visitVarInsn(ISTORE, f);
            mv.visitLabel(te);
            mv.visitJumpInsn(GOTO, out);
            mv.visitLabel(h);
            mv.visitInsn(POP);
            mv.visitInsn(ICONST_M1);
            mv.visitVarInsn(ISTORE, f);
            mv.visitLabel(out);
            mv.visitVarInsn(ILOAD, f);
            ret.emit(mv);
        });
        // a loop whose header follows dead code, and dead code right after the back edge
        BODIES.put("DeadAroundLoop", (g, mv, x, f, ret) -> {
            Label head = new Label(), exit = new Label();
            mv.visitInsn(ICONST_0);
            mv.visitVarInsn(ISTORE, f);
            mv.visitJumpInsn(GOTO, head);
            mv.visitIincInsn(f, 7); // dead, just before the loop header
            mv.visitLabel(head);
            mv.visitVarInsn(ILOAD, f);
            mv.visitIntInsn(BIPUSH, 4);
            mv.visitJumpInsn(IF_ICMPGE, exit);
            mv.visitIincInsn(f, 1);
            mv.visitJumpInsn(GOTO, head);
            mv.visitIincInsn(f, 9); // dead, after the back edge
            mv.visitJumpInsn(GOTO, head);
            mv.visitLabel(exit);
            mv.visitVarInsn(ILOAD, f);
            mv.visitVarInsn(ILOAD, x);
            mv.visitInsn(IMUL);
            ret.emit(mv);
        });
    }

    static void println(MethodVisitor mv, String s) {
        mv.visitFieldInsn(GETSTATIC, "java/lang/System", "out", "Ljava/io/PrintStream;");
        mv.visitLdcInsn(s);
        mv.visitMethodInsn(INVOKEVIRTUAL, "java/io/PrintStream", "println", "(Ljava/lang/String;)V", false);
    }

    static void throwNew(MethodVisitor mv, String type) {
        mv.visitTypeInsn(NEW, type);
        mv.visitInsn(DUP);
        mv.visitMethodInsn(INVOKESPECIAL, type, "<init>", "()V", false);
        mv.visitInsn(ATHROW);
    }

    // ------------------------------------------------------------------ classes
    /** One case class of {@code BODIES}: the body in five method shapes, plus helpers. */
    static byte[] caseClass(String cls, int version, Body body) {
        Gen g = new Gen(cls, version);
        ClassWriter cw = new Writer(ClassWriter.COMPUTE_FRAMES);
        cw.visit(version, ACC_PUBLIC | ACC_SUPER, cls, null, "java/lang/Object", null);
        cw.visitField(ACC_PUBLIC, "v", "I", null, null).visitEnd();
        cw.visitField(ACC_PUBLIC | ACC_STATIC, "V", "I", null, null).visitEnd();
        Ret ireturn = mv -> mv.visitInsn(IRETURN);

        MethodVisitor mv = cw.visitMethod(ACC_PUBLIC | ACC_STATIC, "s", "(I)I", null, null);
        mv.visitCode();
        body.emit(g, mv, 0, 1, ireturn);
        end(mv);
        mv = cw.visitMethod(ACC_PUBLIC, "i", "(I)I", null, null);
        mv.visitCode();
        body.emit(g, mv, 1, 2, ireturn);
        end(mv);
        mv = cw.visitMethod(ACC_PUBLIC | ACC_SYNCHRONIZED, "m", "(I)I", null, null);
        mv.visitCode();
        body.emit(g, mv, 1, 2, ireturn);
        end(mv);

        mv = cw.visitMethod(ACC_PUBLIC, "<init>", "()V", null, null);
        mv.visitCode();
        mv.visitVarInsn(ALOAD, 0);
        mv.visitMethodInsn(INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        mv.visitInsn(RETURN);
        end(mv);
        mv = cw.visitMethod(ACC_PUBLIC, "<init>", "(I)V", null, null);
        mv.visitCode();
        mv.visitVarInsn(ALOAD, 0);
        mv.visitMethodInsn(INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        body.emit(g, mv, 1, 2, m -> {
            m.visitVarInsn(ISTORE, 40);
            m.visitVarInsn(ALOAD, 0);
            m.visitVarInsn(ILOAD, 40);
            m.visitFieldInsn(PUTFIELD, cls, "v", "I");
            m.visitInsn(RETURN);
        });
        end(mv);
        mv = cw.visitMethod(ACC_STATIC, "<clinit>", "()V", null, null);
        mv.visitCode();
        mv.visitIntInsn(BIPUSH, 7);
        mv.visitVarInsn(ISTORE, 0);
        body.emit(g, mv, 0, 1, m -> {
            m.visitFieldInsn(PUTSTATIC, cls, "V", "I");
            m.visitInsn(RETURN);
        });
        end(mv);
        helpers(cw);
        cw.visitEnd();
        return cw.toByteArray();
    }

    /** add(II)I, sq(I)I and inv(I)I = 100 / v, called by the bodies. */
    static void helpers(ClassWriter cw) {
        MethodVisitor mv = cw.visitMethod(ACC_STATIC, "add", "(II)I", null, null);
        mv.visitCode();
        mv.visitVarInsn(ILOAD, 0);
        mv.visitVarInsn(ILOAD, 1);
        mv.visitInsn(IADD);
        mv.visitInsn(IRETURN);
        end(mv);
        mv = cw.visitMethod(ACC_STATIC, "sq", "(I)I", null, null);
        mv.visitCode();
        mv.visitVarInsn(ILOAD, 0);
        mv.visitVarInsn(ILOAD, 0);
        mv.visitInsn(IMUL);
        mv.visitInsn(IRETURN);
        end(mv);
        mv = cw.visitMethod(ACC_STATIC, "inv", "(I)I", null, null);
        mv.visitCode();
        mv.visitIntInsn(BIPUSH, 100);
        mv.visitVarInsn(ILOAD, 0);
        mv.visitInsn(IDIV);
        mv.visitInsn(IRETURN);
        end(mv);
    }

    static void end(MethodVisitor mv) {
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    /** Constructor cases: dead code before super() (and a dead second super() call), an interface. */
    static byte[] ctorClass(String cls, int version) {
        ClassWriter cw = new Writer(ClassWriter.COMPUTE_FRAMES);
        cw.visit(version, ACC_PUBLIC | ACC_SUPER, cls, null, "java/lang/Object", null);
        cw.visitField(ACC_PUBLIC, "v", "I", null, null).visitEnd();
        MethodVisitor mv = cw.visitMethod(ACC_PUBLIC, "<init>", "(I)V", null, null);
        mv.visitCode();
        Label a = new Label(), s = new Label();
        mv.visitVarInsn(ILOAD, 1);
        mv.visitJumpInsn(IFEQ, a);
        mv.visitJumpInsn(GOTO, s);
        mv.visitVarInsn(ALOAD, 0); // dead: a second super() call
        mv.visitMethodInsn(INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        mv.visitInsn(RETURN);
        mv.visitLabel(a);
        mv.visitIincInsn(1, 3);
        mv.visitLabel(s);
        mv.visitVarInsn(ALOAD, 0);
        mv.visitMethodInsn(INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        mv.visitVarInsn(ALOAD, 0);
        mv.visitVarInsn(ILOAD, 1);
        mv.visitFieldInsn(PUTFIELD, cls, "v", "I");
        mv.visitInsn(RETURN);
        mv.visitIincInsn(1, 1); // dead after the last return
        mv.visitInsn(RETURN);
        end(mv);
        // a constructor whose super() argument is computed on two paths, with dead code between
        mv = cw.visitMethod(ACC_PUBLIC, "<init>", "(II)V", null, null);
        mv.visitCode();
        Label b = new Label(), j = new Label();
        mv.visitVarInsn(ALOAD, 0);
        mv.visitVarInsn(ILOAD, 1);
        mv.visitJumpInsn(IFEQ, b);
        mv.visitVarInsn(ILOAD, 2);
        mv.visitJumpInsn(GOTO, j);
        mv.visitInsn(ICONST_0); // dead, with uninitializedThis on the live stack around it
        mv.visitInsn(POP);
        mv.visitLabel(b);
        mv.visitVarInsn(ILOAD, 2);
        mv.visitInsn(ICONST_2);
        mv.visitInsn(IMUL);
        mv.visitLabel(j);
        mv.visitMethodInsn(INVOKESPECIAL, cls, "<init>", "(I)V", false);
        mv.visitInsn(RETURN);
        end(mv);
        cw.visitEnd();
        return cw.toByteArray();
    }

    static byte[] iface(String cls, int version) {
        ClassWriter cw = new Writer(ClassWriter.COMPUTE_FRAMES);
        cw.visit(version, ACC_PUBLIC | ACC_ABSTRACT | ACC_INTERFACE, cls, null, "java/lang/Object", null);
        Gen g = new Gen(cls, version);
        Ret ireturn = mv -> mv.visitInsn(IRETURN);
        MethodVisitor mv = cw.visitMethod(ACC_PUBLIC, "d", "(I)I", null, null);
        mv.visitCode();
        BODIES.get("AfterGoto").emit(g, mv, 1, 2, ireturn);
        end(mv);
        mv = cw.visitMethod(ACC_PUBLIC | ACC_STATIC, "s", "(I)I", null, null);
        mv.visitCode();
        BODIES.get("HandlerOnlyDead").emit(g, mv, 0, 1, ireturn);
        end(mv);
        cw.visitEnd();
        return cw.toByteArray();
    }

    static byte[] impl(String cls, String iface, int version) {
        ClassWriter cw = new Writer(ClassWriter.COMPUTE_FRAMES);
        cw.visit(version, ACC_PUBLIC | ACC_SUPER, cls, null, "java/lang/Object", new String[] {iface});
        MethodVisitor mv = cw.visitMethod(ACC_PUBLIC, "<init>", "()V", null, null);
        mv.visitCode();
        mv.visitVarInsn(ALOAD, 0);
        mv.visitMethodInsn(INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        mv.visitInsn(RETURN);
        end(mv);
        cw.visitEnd();
        return cw.toByteArray();
    }

    // ------------------------------------------------------------------ dead code with true frames
    static final Object[] I1 = {INTEGER};

    static MethodVisitor begin(ClassWriter cw, String name) {
        MethodVisitor mv = cw.visitMethod(ACC_PUBLIC | ACC_STATIC, name, "(I)I", null, null);
        mv.visitCode();
        return mv;
    }

    static void frame(MethodVisitor mv, Object[] locals, Object... stack) {
        mv.visitFrame(F_FULL, locals.length, locals, stack.length, stack);
    }

    static final String[] HONEST = {"h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8"};

    static byte[] honest(String cls) {
        ClassWriter cw = new Writer(ClassWriter.COMPUTE_MAXS);
        cw.visit(V1_8, ACC_PUBLIC | ACC_SUPER, cls, null, "java/lang/Object", null);
        cw.visitField(ACC_PUBLIC, "v", "I", null, null).visitEnd();
        // h1: a dead block with two ints on the stack
        MethodVisitor mv = begin(cw, "h1");
        Label l = new Label(), d;
        mv.visitVarInsn(ILOAD, 0);
        mv.visitInsn(ICONST_1);
        mv.visitJumpInsn(GOTO, l);
        frame(mv, I1, INTEGER, INTEGER);
        mv.visitInsn(IADD);
        mv.visitInsn(ICONST_2);
        mv.visitJumpInsn(GOTO, l);
        mv.visitLabel(l);
        frame(mv, I1, INTEGER, INTEGER);
        mv.visitInsn(IADD);
        mv.visitInsn(IRETURN);
        end(mv);
        // h2: a dead block allocating and calling
        mv = begin(cw, "h2");
        l = new Label();
        mv.visitJumpInsn(GOTO, l);
        frame(mv, I1);
        mv.visitTypeInsn(NEW, SB);
        mv.visitInsn(DUP);
        mv.visitLdcInsn("d");
        mv.visitMethodInsn(INVOKESPECIAL, SB, "<init>", "(Ljava/lang/String;)V", false);
        mv.visitMethodInsn(INVOKEVIRTUAL, SB, "length", "()I", false);
        mv.visitInsn(IRETURN);
        mv.visitLabel(l);
        frame(mv, I1);
        mv.visitVarInsn(ILOAD, 0);
        mv.visitInsn(IRETURN);
        end(mv);
        // h3: a dead loop (a loop header that is never reached)
        mv = begin(cw, "h3");
        l = new Label();
        d = new Label();
        mv.visitJumpInsn(GOTO, l);
        mv.visitLabel(d);
        frame(mv, I1);
        mv.visitIincInsn(0, 1);
        mv.visitJumpInsn(GOTO, d);
        mv.visitLabel(l);
        frame(mv, I1);
        mv.visitVarInsn(ILOAD, 0);
        mv.visitInsn(ICONST_4);
        mv.visitInsn(IADD);
        mv.visitInsn(IRETURN);
        end(mv);
        // h4: dead code falling through into live code
        mv = begin(cw, "h4");
        l = new Label();
        Label m = new Label();
        mv.visitVarInsn(ILOAD, 0);
        mv.visitJumpInsn(IFEQ, l);
        mv.visitJumpInsn(GOTO, m);
        frame(mv, I1);
        mv.visitIincInsn(0, 3);
        mv.visitLabel(l);
        frame(mv, I1);
        mv.visitIincInsn(0, 1);
        mv.visitLabel(m);
        frame(mv, I1);
        mv.visitVarInsn(ILOAD, 0);
        mv.visitInsn(IRETURN);
        end(mv);
        // h5: a handler reached only from dead code
        mv = begin(cw, "h5");
        l = new Label();
        Label ds = new Label(), de = new Label(), h = new Label();
        mv.visitTryCatchBlock(ds, de, h, "java/lang/ArithmeticException");
        mv.visitJumpInsn(GOTO, l);
        mv.visitLabel(ds);
        frame(mv, I1);
        mv.visitVarInsn(ILOAD, 0);
        mv.visitInsn(ICONST_0);
        mv.visitInsn(IDIV);
        mv.visitInsn(IRETURN);
        mv.visitLabel(de);
        mv.visitLabel(h);
        frame(mv, I1, "java/lang/ArithmeticException");
        mv.visitInsn(POP);
        mv.visitInsn(ICONST_M1);
        mv.visitInsn(IRETURN);
        mv.visitLabel(l);
        frame(mv, I1);
        mv.visitVarInsn(ILOAD, 0);
        mv.visitInsn(ICONST_5);
        mv.visitInsn(IADD);
        mv.visitInsn(IRETURN);
        end(mv);
        // h6: a long on the stack of a dead block
        mv = begin(cw, "h6");
        l = new Label();
        mv.visitJumpInsn(GOTO, l);
        frame(mv, I1, LONG);
        mv.visitInsn(L2I);
        mv.visitInsn(IRETURN);
        mv.visitLabel(l);
        frame(mv, I1);
        mv.visitVarInsn(ILOAD, 0);
        mv.visitInsn(ICONST_M1);
        mv.visitInsn(IXOR);
        mv.visitInsn(IRETURN);
        end(mv);
        // h7: uninitialized objects (of a live new) on the stack of a dead block
        mv = begin(cw, "h7");
        l = new Label();
        Label nw = new Label();
        mv.visitLabel(nw);
        mv.visitTypeInsn(NEW, SB);
        mv.visitInsn(DUP);
        mv.visitJumpInsn(GOTO, l);
        frame(mv, I1, nw, nw);
        mv.visitLdcInsn("dead");
        mv.visitMethodInsn(INVOKESPECIAL, SB, "<init>", "(Ljava/lang/String;)V", false);
        mv.visitMethodInsn(INVOKEVIRTUAL, SB, "length", "()I", false);
        mv.visitInsn(IRETURN);
        mv.visitLabel(l);
        frame(mv, I1, nw, nw);
        mv.visitLdcInsn("live");
        mv.visitMethodInsn(INVOKESPECIAL, SB, "<init>", "(Ljava/lang/String;)V", false);
        mv.visitMethodInsn(INVOKEVIRTUAL, SB, "length", "()I", false);
        mv.visitVarInsn(ILOAD, 0);
        mv.visitInsn(IADD);
        mv.visitInsn(IRETURN);
        end(mv);
        // h8: ASM's own shape written by hand: a dead athrow with [Throwable] and no locals, then a dead
        // block with a dead handler range of its own
        mv = begin(cw, "h8");
        l = new Label();
        Label ds2 = new Label(), de2 = new Label(), h2 = new Label();
        mv.visitTryCatchBlock(ds2, de2, h2, null);
        mv.visitVarInsn(ILOAD, 0);
        mv.visitVarInsn(ISTORE, 1);
        mv.visitJumpInsn(GOTO, l);
        frame(mv, new Object[0], T);
        mv.visitInsn(ATHROW);
        mv.visitLabel(ds2);
        frame(mv, new Object[] {INTEGER, INTEGER});
        mv.visitVarInsn(ILOAD, 1);
        mv.visitMethodInsn(INVOKESTATIC, "java/lang/Math", "abs", "(I)I", false);
        mv.visitInsn(IRETURN);
        mv.visitLabel(de2);
        mv.visitLabel(h2);
        frame(mv, new Object[] {INTEGER, INTEGER}, T);
        mv.visitInsn(ATHROW);
        mv.visitLabel(l);
        frame(mv, new Object[] {INTEGER, INTEGER});
        mv.visitVarInsn(ILOAD, 1);
        mv.visitIntInsn(BIPUSH, 6);
        mv.visitInsn(IMUL);
        mv.visitInsn(IRETURN);
        end(mv);
        // <init>(I): a dead second super() before the live one; <init>(): plain
        mv = cw.visitMethod(ACC_PUBLIC, "<init>", "(I)V", null, null);
        mv.visitCode();
        Label s = new Label();
        mv.visitJumpInsn(GOTO, s);
        frame(mv, new Object[] {UNINITIALIZED_THIS, INTEGER});
        mv.visitVarInsn(ALOAD, 0);
        mv.visitMethodInsn(INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        mv.visitInsn(RETURN);
        mv.visitLabel(s);
        frame(mv, new Object[] {UNINITIALIZED_THIS, INTEGER});
        mv.visitVarInsn(ALOAD, 0);
        mv.visitMethodInsn(INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        mv.visitVarInsn(ALOAD, 0);
        mv.visitVarInsn(ILOAD, 1);
        mv.visitFieldInsn(PUTFIELD, cls, "v", "I");
        mv.visitInsn(RETURN);
        end(mv);
        cw.visitEnd();
        return cw.toByteArray();
    }

    // ------------------------------------------------------------------ JSR/RET (version 49)
    static final String[] JSR_METHODS = {"j1", "j2", "j3", "j4", "j5", "j6"};

    static byte[] jsr(String cls) {
        ClassWriter cw = new Writer(ClassWriter.COMPUTE_MAXS);
        cw.visit(V1_5, ACC_PUBLIC | ACC_SUPER, cls, null, "java/lang/Object", null);
        // j1: try/finally as javac 1.4 compiled it
        MethodVisitor mv = begin(cw, "j1");
        Label ts = new Label(), te = new Label(), h = new Label(), fin = new Label(), e = new Label();
        mv.visitTryCatchBlock(ts, te, h, null);
        mv.visitVarInsn(ILOAD, 0);
        mv.visitVarInsn(ISTORE, 1);
        mv.visitLabel(ts);
        mv.visitIincInsn(1, 5);
        mv.visitIntInsn(BIPUSH, 100);
        mv.visitVarInsn(ILOAD, 0);
        mv.visitInsn(ICONST_5);
        mv.visitInsn(ISUB);
        mv.visitInsn(IDIV);
        mv.visitVarInsn(ILOAD, 1);
        mv.visitInsn(IADD);
        mv.visitVarInsn(ISTORE, 1);
        mv.visitLabel(te);
        mv.visitJumpInsn(JSR, fin);
        mv.visitJumpInsn(GOTO, e);
        mv.visitLabel(h);
        mv.visitVarInsn(ASTORE, 2);
        mv.visitJumpInsn(JSR, fin);
        mv.visitIntInsn(BIPUSH, -7);
        mv.visitInsn(IRETURN); // the exception is swallowed: x = 5
        mv.visitLabel(fin);
        mv.visitVarInsn(ASTORE, 3);
        mv.visitIincInsn(1, 100);
        mv.visitVarInsn(RET, 3);
        mv.visitLabel(e);
        mv.visitVarInsn(ILOAD, 1);
        mv.visitInsn(IRETURN);
        end(mv);
        // j2: a subroutine called from two sites, calling another subroutine
        mv = begin(cw, "j2");
        Label s1 = new Label(), s2 = new Label();
        mv.visitInsn(ICONST_0);
        mv.visitVarInsn(ISTORE, 1);
        mv.visitJumpInsn(JSR, s1);
        mv.visitJumpInsn(JSR, s1);
        mv.visitVarInsn(ILOAD, 1);
        mv.visitVarInsn(ILOAD, 0);
        mv.visitInsn(IADD);
        mv.visitInsn(IRETURN);
        mv.visitLabel(s1);
        mv.visitVarInsn(ASTORE, 2);
        mv.visitIincInsn(1, 1);
        mv.visitJumpInsn(JSR, s2);
        mv.visitVarInsn(RET, 2);
        mv.visitLabel(s2);
        mv.visitVarInsn(ASTORE, 3);
        mv.visitIincInsn(1, 10);
        mv.visitVarInsn(RET, 3);
        end(mv);
        // j3: a subroutine called in a loop
        mv = begin(cw, "j3");
        Label lp = new Label(), s = new Label(), ex = new Label();
        mv.visitInsn(ICONST_0);
        mv.visitVarInsn(ISTORE, 1);
        mv.visitInsn(ICONST_0);
        mv.visitVarInsn(ISTORE, 2);
        mv.visitLabel(lp);
        mv.visitVarInsn(ILOAD, 2);
        mv.visitVarInsn(ILOAD, 0);
        mv.visitInsn(ICONST_3);
        mv.visitInsn(IAND);
        mv.visitJumpInsn(IF_ICMPGT, ex);
        mv.visitJumpInsn(JSR, s);
        mv.visitIincInsn(2, 1);
        mv.visitJumpInsn(GOTO, lp);
        mv.visitLabel(s);
        mv.visitVarInsn(ASTORE, 3);
        mv.visitVarInsn(ILOAD, 1);
        mv.visitVarInsn(ILOAD, 2);
        mv.visitInsn(IADD);
        mv.visitVarInsn(ISTORE, 1);
        mv.visitVarInsn(RET, 3);
        mv.visitLabel(ex);
        mv.visitVarInsn(ILOAD, 1);
        mv.visitInsn(IRETURN);
        end(mv);
        // j4: subroutines that never ret: one throws (caught), one returns from the method
        mv = begin(cw, "j4");
        ts = new Label();
        te = new Label();
        h = new Label();
        Label p = new Label(), sthrow = new Label(), sret = new Label();
        mv.visitTryCatchBlock(ts, te, h, "java/lang/IllegalStateException");
        mv.visitLabel(ts);
        mv.visitVarInsn(ILOAD, 0);
        mv.visitJumpInsn(IFGE, p);
        mv.visitJumpInsn(JSR, sthrow);
        mv.visitLabel(p);
        mv.visitJumpInsn(JSR, sret);
        mv.visitLabel(sthrow);
        mv.visitVarInsn(ASTORE, 1);
        throwNew(mv, "java/lang/IllegalStateException");
        mv.visitLabel(sret);
        mv.visitVarInsn(ASTORE, 1);
        mv.visitVarInsn(ILOAD, 0);
        mv.visitInsn(ICONST_2);
        mv.visitInsn(IMUL);
        mv.visitInsn(IRETURN);
        mv.visitLabel(te);
        mv.visitLabel(h);
        mv.visitInsn(POP);
        mv.visitIntInsn(BIPUSH, 99);
        mv.visitInsn(IRETURN);
        end(mv);
        // j5: long and double locals across a subroutine that changes one; the return address in a
        // local past 255 (wide astore / wide ret)
        mv = begin(cw, "j5");
        s = new Label();
        mv.visitVarInsn(ILOAD, 0);
        mv.visitInsn(I2L);
        mv.visitVarInsn(LSTORE, 1);
        mv.visitVarInsn(ILOAD, 0);
        mv.visitInsn(I2D);
        mv.visitVarInsn(DSTORE, 3);
        mv.visitJumpInsn(JSR, s);
        mv.visitVarInsn(LLOAD, 1);
        mv.visitInsn(L2I);
        mv.visitVarInsn(DLOAD, 3);
        mv.visitInsn(D2I);
        mv.visitInsn(IADD);
        mv.visitInsn(IRETURN);
        mv.visitLabel(s);
        mv.visitVarInsn(ASTORE, 300);
        mv.visitVarInsn(LLOAD, 1);
        mv.visitInsn(LCONST_1);
        mv.visitInsn(LADD);
        mv.visitVarInsn(LSTORE, 1);
        mv.visitVarInsn(RET, 300);
        end(mv);
        // j6: dead code (no frames in version 49: it stays as written) with calls in it
        mv = begin(cw, "j6");
        Label live = new Label();
        mv.visitJumpInsn(GOTO, live);
        mv.visitInsn(ICONST_0);
        mv.visitMethodInsn(INVOKESTATIC, "java/lang/Math", "abs", "(I)I", false);
        mv.visitInsn(POP);
        println(mv, "dead");
        mv.visitLabel(live);
        mv.visitVarInsn(ILOAD, 0);
        mv.visitIntInsn(BIPUSH, 11);
        mv.visitInsn(IMUL);
        mv.visitInsn(IRETURN);
        end(mv);
        cw.visitEnd();
        return cw.toByteArray();
    }

    // ------------------------------------------------------------------ the driver
    static byte[] main(List<String> fullCases, List<String[]> ctorCases, List<String[]> ifaceCases,
                       Map<String, String[]> staticCases) {
        ClassWriter cw = new Writer(ClassWriter.COMPUTE_FRAMES);
        String cls = "deadcode/Main";
        cw.visit(V1_8, ACC_PUBLIC | ACC_SUPER, cls, null, "java/lang/Object", null);
        cw.visitField(ACC_STATIC, "acc", "J", null, null).visitEnd();
        MethodVisitor mv = cw.visitMethod(ACC_STATIC, "mix", "(I)V", null, null);
        mv.visitCode();
        mv.visitFieldInsn(GETSTATIC, cls, "acc", "J");
        mv.visitLdcInsn(31L);
        mv.visitInsn(LMUL);
        mv.visitVarInsn(ILOAD, 0);
        mv.visitInsn(I2L);
        mv.visitInsn(LADD);
        mv.visitFieldInsn(PUTSTATIC, cls, "acc", "J");
        mv.visitInsn(RETURN);
        end(mv);
        mv = cw.visitMethod(ACC_STATIC, "report", "(Ljava/lang/String;)V", null, null);
        mv.visitCode();
        mv.visitFieldInsn(GETSTATIC, "java/lang/System", "out", "Ljava/io/PrintStream;");
        mv.visitTypeInsn(NEW, SB);
        mv.visitInsn(DUP);
        mv.visitVarInsn(ALOAD, 0);
        mv.visitMethodInsn(INVOKESPECIAL, SB, "<init>", "(Ljava/lang/String;)V", false);
        mv.visitLdcInsn(" ");
        mv.visitMethodInsn(INVOKEVIRTUAL, SB, "append", "(Ljava/lang/String;)Ljava/lang/StringBuilder;", false);
        mv.visitFieldInsn(GETSTATIC, cls, "acc", "J");
        mv.visitMethodInsn(INVOKEVIRTUAL, SB, "append", "(J)Ljava/lang/StringBuilder;", false);
        mv.visitMethodInsn(INVOKEVIRTUAL, SB, "toString", "()Ljava/lang/String;", false);
        mv.visitMethodInsn(INVOKEVIRTUAL, "java/io/PrintStream", "println", "(Ljava/lang/String;)V", false);
        mv.visitInsn(RETURN);
        end(mv);

        // one method per case (main stays small, and each case is a subtree of its own in a profile)
        List<String> runs = new ArrayList<>();
        for (String c : fullCases) {
            mv = runner(cw, runs, c);
            for (int x : XS) {
                push(mv, x);
                mv.visitMethodInsn(INVOKESTATIC, c, "s", "(I)I", false);
                mix(mv, cls);
                for (String name : new String[] {"i", "m"}) {
                    mv.visitTypeInsn(NEW, c);
                    mv.visitInsn(DUP);
                    mv.visitMethodInsn(INVOKESPECIAL, c, "<init>", "()V", false);
                    push(mv, x);
                    mv.visitMethodInsn(INVOKEVIRTUAL, c, name, "(I)I", false);
                    mix(mv, cls);
                }
                mv.visitTypeInsn(NEW, c);
                mv.visitInsn(DUP);
                push(mv, x);
                mv.visitMethodInsn(INVOKESPECIAL, c, "<init>", "(I)V", false);
                mv.visitFieldInsn(GETFIELD, c, "v", "I");
                mix(mv, cls);
            }
            mv.visitFieldInsn(GETSTATIC, c, "V", "I");
            mix(mv, cls);
            endRunner(mv, cls, c);
        }
        for (String[] c : ctorCases) { // {class}
            mv = runner(cw, runs, c[0]);
            for (int x : XS) {
                mv.visitTypeInsn(NEW, c[0]);
                mv.visitInsn(DUP);
                push(mv, x);
                mv.visitMethodInsn(INVOKESPECIAL, c[0], "<init>", "(I)V", false);
                mv.visitFieldInsn(GETFIELD, c[0], "v", "I");
                mix(mv, cls);
                mv.visitTypeInsn(NEW, c[0]);
                mv.visitInsn(DUP);
                push(mv, x & 1);
                push(mv, x);
                mv.visitMethodInsn(INVOKESPECIAL, c[0], "<init>", "(II)V", false);
                mv.visitFieldInsn(GETFIELD, c[0], "v", "I");
                mix(mv, cls);
            }
            endRunner(mv, cls, c[0]);
        }
        for (String[] c : ifaceCases) { // {interface, implementation}
            mv = runner(cw, runs, c[0]);
            for (int x : XS) {
                mv.visitTypeInsn(NEW, c[1]);
                mv.visitInsn(DUP);
                mv.visitMethodInsn(INVOKESPECIAL, c[1], "<init>", "()V", false);
                push(mv, x);
                mv.visitMethodInsn(INVOKEINTERFACE, c[0], "d", "(I)I", true);
                mix(mv, cls);
                push(mv, x);
                mv.visitMethodInsn(INVOKESTATIC, c[0], "s", "(I)I", true);
                mix(mv, cls);
            }
            endRunner(mv, cls, c[0]);
        }
        for (Map.Entry<String, String[]> c : staticCases.entrySet()) {
            mv = runner(cw, runs, c.getKey());
            for (String name : c.getValue()) {
                for (int x : XS) {
                    push(mv, x);
                    mv.visitMethodInsn(INVOKESTATIC, c.getKey(), name, "(I)I", false);
                    mix(mv, cls);
                }
            }
            if (c.getKey().endsWith("Honest")) {
                mv.visitTypeInsn(NEW, c.getKey());
                mv.visitInsn(DUP);
                push(mv, 42);
                mv.visitMethodInsn(INVOKESPECIAL, c.getKey(), "<init>", "(I)V", false);
                mv.visitFieldInsn(GETFIELD, c.getKey(), "v", "I");
                mix(mv, cls);
            }
            endRunner(mv, cls, c.getKey());
        }
        mv = cw.visitMethod(ACC_PUBLIC | ACC_STATIC, "main", "([Ljava/lang/String;)V", null, null);
        mv.visitCode();
        for (String r : runs)
            mv.visitMethodInsn(INVOKESTATIC, cls, r, "()V", false);
        report(mv, cls, "checksum");
        mv.visitInsn(RETURN);
        end(mv);
        cw.visitEnd();
        return cw.toByteArray();
    }

    /** A new static method {@code run_<case>()V} of Main, its name added to {@code runs}. */
    static MethodVisitor runner(ClassWriter cw, List<String> runs, String c) {
        String name = "run_" + c.replace('/', '_');
        runs.add(name);
        MethodVisitor mv = cw.visitMethod(ACC_STATIC, name, "()V", null, null);
        mv.visitCode();
        return mv;
    }

    static void endRunner(MethodVisitor mv, String cls, String c) {
        report(mv, cls, c);
        mv.visitInsn(RETURN);
        end(mv);
    }

    static void push(MethodVisitor mv, int x) {
        mv.visitIntInsn(BIPUSH, x);
    }

    static void mix(MethodVisitor mv, String cls) {
        mv.visitMethodInsn(INVOKESTATIC, cls, "mix", "(I)V", false);
    }

    static void report(MethodVisitor mv, String cls, String what) {
        mv.visitLdcInsn(what);
        mv.visitMethodInsn(INVOKESTATIC, cls, "report", "(Ljava/lang/String;)V", false);
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: GenDeadCode OUT.jar");
            System.exit(2);
        }
        Map<String, byte[]> classes = new LinkedHashMap<>();
        List<String> full = new ArrayList<>();
        List<String[]> ctors = new ArrayList<>();
        List<String[]> ifaces = new ArrayList<>();
        Map<String, String[]> statics = new LinkedHashMap<>();
        int[] versions = {V1_8, V1_6, V17};
        String[] packages = {"deadcode/", "deadcode50/", "deadcode61/"};
        for (int k = 0; k < versions.length; k++) {
            for (Map.Entry<String, Body> b : BODIES.entrySet()) {
                String cls = packages[k] + b.getKey();
                classes.put(cls, caseClass(cls, versions[k], b.getValue()));
                full.add(cls);
            }
            String ctor = packages[k] + "CtorDead";
            classes.put(ctor, ctorClass(ctor, versions[k]));
            ctors.add(new String[] {ctor});
            if (versions[k] >= V1_8) {
                String i = packages[k] + "IDead", impl = packages[k] + "IDeadImpl";
                classes.put(i, iface(i, versions[k]));
                classes.put(impl, impl(impl, i, versions[k]));
                ifaces.add(new String[] {i, impl});
            }
        }
        classes.put("deadcode/Honest", honest("deadcode/Honest"));
        statics.put("deadcode/Honest", HONEST);
        classes.put("deadcode/Jsr", jsr("deadcode/Jsr"));
        statics.put("deadcode/Jsr", JSR_METHODS);
        classes.put("deadcode/Main", main(full, ctors, ifaces, statics));

        Manifest mf = new Manifest();
        mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        mf.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "deadcode.Main");
        try (OutputStream os = new FileOutputStream(args[0]); JarOutputStream jar = new JarOutputStream(os, mf)) {
            for (Map.Entry<String, byte[]> c : classes.entrySet()) {
                JarEntry e = new JarEntry(c.getKey() + ".class");
                e.setTime(0L);
                jar.putNextEntry(e);
                jar.write(c.getValue());
                jar.closeEntry();
            }
        }
        System.out.println(classes.size() + " classes");
    }
}
