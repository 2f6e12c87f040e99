package generators;

import org.objectweb.asm.*;
import java.io.*;
import java.util.jar.*;

/**
 * Writes {@code condy/Main} (class version 55) to the jar named by its argument: application code that the
 * JVM runs with no call instruction. {@code text()} and {@code num()} load dynamic constants (a String and
 * a long, {@code ldc}/{@code ldc2_w}) whose bootstrap methods are the class's own; {@code viaIndy()} is an
 * invokedynamic whose bootstrap method is the class's own too and whose static argument is a dynamic
 * constant. {@code main} calls each twice: the bootstraps run on the first call only. javac writes no
 * dynamic constants; ASM, as compilers of other languages use it, does.
 */
public class GenCondy implements Opcodes {
    public static void main(String[] args) throws Exception {
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS);
        cw.visit(V11, ACC_PUBLIC | ACC_SUPER, "condy/Main", null, "java/lang/Object", null);
        String bsmDesc = "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/Class;)Ljava/lang/Object;";
        Handle bsmStr = new Handle(H_INVOKESTATIC, "condy/Main", "bsmStr", bsmDesc, false);
        Handle bsmLong = new Handle(H_INVOKESTATIC, "condy/Main", "bsmLong", bsmDesc, false);
        String indyDesc = "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/invoke/MethodType;Ljava/lang/Object;)Ljava/lang/invoke/CallSite;";
        Handle bsmIndy = new Handle(H_INVOKESTATIC, "condy/Main", "bsmIndy", indyDesc, false);
        MethodVisitor mv;
        // bsmStr: builds "const-" + name with a loop (application code the JVM calls during resolution)
        mv = cw.visitMethod(ACC_STATIC, "bsmStr", bsmDesc, null, null);
        mv.visitCode();
        mv.visitVarInsn(ALOAD, 1);
        mv.visitMethodInsn(INVOKESTATIC, "condy/Main", "decorate", "(Ljava/lang/String;)Ljava/lang/String;", false);
        mv.visitInsn(ARETURN);
        mv.visitMaxs(0, 0); mv.visitEnd();
        mv = cw.visitMethod(ACC_STATIC, "decorate", "(Ljava/lang/String;)Ljava/lang/String;", null, null);
        mv.visitCode();
        mv.visitTypeInsn(NEW, "java/lang/StringBuilder");
        mv.visitInsn(DUP);
        mv.visitLdcInsn("const-");
        mv.visitMethodInsn(INVOKESPECIAL, "java/lang/StringBuilder", "<init>", "(Ljava/lang/String;)V", false);
        mv.visitVarInsn(ALOAD, 0);
        mv.visitMethodInsn(INVOKEVIRTUAL, "java/lang/StringBuilder", "append", "(Ljava/lang/String;)Ljava/lang/StringBuilder;", false);
        mv.visitMethodInsn(INVOKEVIRTUAL, "java/lang/StringBuilder", "toString", "()Ljava/lang/String;", false);
        mv.visitInsn(ARETURN);
        mv.visitMaxs(0, 0); mv.visitEnd();
        mv = cw.visitMethod(ACC_STATIC, "bsmLong", bsmDesc, null, null);
        mv.visitCode();
        mv.visitLdcInsn(40L);
        mv.visitInsn(LCONST_1);
        mv.visitInsn(LADD);
        mv.visitInsn(LCONST_1);
        mv.visitInsn(LADD);
        mv.visitMethodInsn(INVOKESTATIC, "java/lang/Long", "valueOf", "(J)Ljava/lang/Long;", false);
        mv.visitInsn(ARETURN);
        mv.visitMaxs(0, 0); mv.visitEnd();
        // bsmIndy: a constant call site to target(), the condy argument folded into a bound value
        mv = cw.visitMethod(ACC_STATIC, "bsmIndy", indyDesc, null, null);
        mv.visitCode();
        mv.visitTypeInsn(NEW, "java/lang/invoke/ConstantCallSite");
        mv.visitInsn(DUP);
        mv.visitVarInsn(ALOAD, 0);
        mv.visitLdcInsn(Type.getObjectType("condy/Main"));
        mv.visitLdcInsn("target");
        mv.visitLdcInsn(Type.getMethodType("(Ljava/lang/String;)Ljava/lang/String;"));
        mv.visitMethodInsn(INVOKEVIRTUAL, "java/lang/invoke/MethodHandles$Lookup", "findStatic", "(Ljava/lang/Class;Ljava/lang/String;Ljava/lang/invoke/MethodType;)Ljava/lang/invoke/MethodHandle;", false);
        mv.visitInsn(ICONST_0);
        mv.visitInsn(ICONST_1);
        mv.visitTypeInsn(ANEWARRAY, "java/lang/Object");
        mv.visitInsn(DUP);
        mv.visitInsn(ICONST_0);
        mv.visitVarInsn(ALOAD, 3);
        mv.visitInsn(AASTORE);
        mv.visitMethodInsn(INVOKESTATIC, "java/lang/invoke/MethodHandles", "insertArguments", "(Ljava/lang/invoke/MethodHandle;I[Ljava/lang/Object;)Ljava/lang/invoke/MethodHandle;", false);
        mv.visitMethodInsn(INVOKESPECIAL, "java/lang/invoke/ConstantCallSite", "<init>", "(Ljava/lang/invoke/MethodHandle;)V", false);
        mv.visitInsn(ARETURN);
        mv.visitMaxs(0, 0); mv.visitEnd();
        mv = cw.visitMethod(ACC_STATIC, "target", "(Ljava/lang/String;)Ljava/lang/String;", null, null);
        mv.visitCode();
        mv.visitVarInsn(ALOAD, 0);
        mv.visitMethodInsn(INVOKESTATIC, "condy/Main", "decorate", "(Ljava/lang/String;)Ljava/lang/String;", false);
        mv.visitInsn(ARETURN);
        mv.visitMaxs(0, 0); mv.visitEnd();
        ConstantDynamic str = new ConstantDynamic("hello", "Ljava/lang/String;", bsmStr);
        ConstantDynamic lng = new ConstantDynamic("n", "J", bsmLong);
        mv = cw.visitMethod(ACC_STATIC, "text", "()Ljava/lang/String;", null, null);
        mv.visitCode(); mv.visitLdcInsn(str); mv.visitInsn(ARETURN); mv.visitMaxs(0, 0); mv.visitEnd();
        mv = cw.visitMethod(ACC_STATIC, "num", "()J", null, null);
        mv.visitCode(); mv.visitLdcInsn(lng); mv.visitInsn(LRETURN); mv.visitMaxs(0, 0); mv.visitEnd();
        mv = cw.visitMethod(ACC_STATIC, "viaIndy", "()Ljava/lang/String;", null, null);
        mv.visitCode();
        mv.visitInvokeDynamicInsn("call", "()Ljava/lang/String;", bsmIndy, new ConstantDynamic("arg", "Ljava/lang/String;", bsmStr));
        mv.visitInsn(ARETURN); mv.visitMaxs(0, 0); mv.visitEnd();
        mv = cw.visitMethod(ACC_PUBLIC | ACC_STATIC, "main", "([Ljava/lang/String;)V", null, null);
        mv.visitCode();
        for (int i = 0; i < 2; i++) {
            mv.visitFieldInsn(GETSTATIC, "java/lang/System", "out", "Ljava/io/PrintStream;");
            mv.visitMethodInsn(INVOKESTATIC, "condy/Main", "text", "()Ljava/lang/String;", false);
            mv.visitMethodInsn(INVOKEVIRTUAL, "java/io/PrintStream", "println", "(Ljava/lang/String;)V", false);
            mv.visitFieldInsn(GETSTATIC, "java/lang/System", "out", "Ljava/io/PrintStream;");
            mv.visitMethodInsn(INVOKESTATIC, "condy/Main", "num", "()J", false);
            mv.visitMethodInsn(INVOKEVIRTUAL, "java/io/PrintStream", "println", "(J)V", false);
            mv.visitFieldInsn(GETSTATIC, "java/lang/System", "out", "Ljava/io/PrintStream;");
            mv.visitMethodInsn(INVOKESTATIC, "condy/Main", "viaIndy", "()Ljava/lang/String;", false);
            mv.visitMethodInsn(INVOKEVIRTUAL, "java/io/PrintStream", "println", "(Ljava/lang/String;)V", false);
        }
        mv.visitInsn(RETURN);
        mv.visitMaxs(0, 0); mv.visitEnd();
        cw.visitEnd();
        try (JarOutputStream jar = new JarOutputStream(new FileOutputStream(args[0]))) {
            jar.putNextEntry(new JarEntry("condy/Main.class"));
            jar.write(cw.toByteArray());
            jar.closeEntry();
        }
    }
}
