package jprewrite.agent;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Assembles the few short method bodies the contract writer adds: loads, constants, field
 * accesses, invokes, forward and backward branches with 16-bit offsets, returns. It tracks the
 * operand stack depth (for {@code max_stack}) and writes a {@code Code} attribute, with a
 * {@code StackMapTable} of full frames at the labels that were given one.
 */
final class CodeBuilder {
    static final int ACONST_NULL = 0x01, ICONST_0 = 0x03, BIPUSH = 0x10, SIPUSH = 0x11, LDC = 0x12, LDC_W = 0x13,
            ILOAD = 0x15, LLOAD = 0x16, FLOAD = 0x17, DLOAD = 0x18, ALOAD = 0x19, AALOAD = 0x32, AASTORE = 0x53,
            DUP = 0x59, IFEQ = 0x99, IFNE = 0x9A, IFLT = 0x9B, IF_ACMPEQ = 0xA5, IF_ACMPNE = 0xA6, GOTO = 0xA7,
            IRETURN = 0xAC, LRETURN = 0xAD, FRETURN = 0xAE, DRETURN = 0xAF, ARETURN = 0xB0, RETURN = 0xB1,
            GETSTATIC = 0xB2, PUTSTATIC = 0xB3, INVOKEVIRTUAL = 0xB6, INVOKESPECIAL = 0xB7, INVOKESTATIC = 0xB8,
            INVOKEINTERFACE = 0xB9, ANEWARRAY = 0xBD, IFNULL = 0xC6, IFNONNULL = 0xC7, WIDE = 0xC4;

    /** Verification types of a StackMapTable frame (JVMS 4.7.4), without the Object's pool index. */
    static final int ITEM_TOP = 0, ITEM_INTEGER = 1, ITEM_FLOAT = 2, ITEM_DOUBLE = 3, ITEM_LONG = 4, ITEM_OBJECT = 7;

    private final ClassEditor cf;
    private final ByteArrayOutputStream code = new ByteArrayOutputStream(64);
    private int stack;
    private int maxStack;
    private int maxLocals;
    /** {instruction start, label} of every branch, patched at the end. */
    private final List<int[]> fixups = new ArrayList<>();
    private final List<Integer> labels = new ArrayList<>();
    /** {label, encoded locals} of the frames to write. */
    private final List<Object[]> frames = new ArrayList<>();

    CodeBuilder(ClassEditor cf, int maxLocals) {
        this.cf = cf;
        this.maxLocals = maxLocals;
    }

    // ------------------------------------------------------------------ descriptors

    /** The parameter types of a method descriptor, each a field descriptor. */
    static List<String> parameters(String descriptor) {
        if (descriptor.isEmpty() || descriptor.charAt(0) != '(') {
            throw new IllegalArgumentException("bad method descriptor " + descriptor);
        }
        List<String> out = new ArrayList<>();
        int i = 1;
        while (i < descriptor.length() && descriptor.charAt(i) != ')') {
            int end = fieldEnd(descriptor, i);
            out.add(descriptor.substring(i, end));
            i = end;
        }
        if (i >= descriptor.length()) {
            throw new IllegalArgumentException("bad method descriptor " + descriptor);
        }
        String ret = descriptor.substring(i + 1);
        if (!ret.equals("V") && fieldEnd(ret, 0) != ret.length()) {
            throw new IllegalArgumentException("bad method descriptor " + descriptor);
        }
        return out;
    }

    static String returnType(String descriptor) {
        return descriptor.substring(descriptor.lastIndexOf(')') + 1);
    }

    private static int fieldEnd(String d, int i) {
        int start = i;
        while (i < d.length() && d.charAt(i) == '[') {
            i++;
        }
        if (i >= d.length() || i - start > 255) {
            throw new IllegalArgumentException("bad descriptor " + d);
        }
        char c = d.charAt(i);
        if (c == 'L') {
            int semi = d.indexOf(';', i);
            if (semi < 0 || semi == i + 1) {
                throw new IllegalArgumentException("bad descriptor " + d);
            }
            return semi + 1;
        }
        if ("BCDFIJSZ".indexOf(c) < 0) {
            throw new IllegalArgumentException("bad descriptor " + d);
        }
        return i + 1;
    }

    /** Slots a value of field type {@code t} takes (0 for V). */
    static int size(String t) {
        char c = t.charAt(0);
        return c == 'J' || c == 'D' ? 2 : c == 'V' ? 0 : 1;
    }

    static int parameterSlots(String descriptor) {
        int n = 0;
        for (String p : parameters(descriptor)) {
            n += size(p);
        }
        return n;
    }

    // ------------------------------------------------------------------ instructions

    int position() {
        return code.size();
    }

    private void u1(int v) {
        code.write(v);
    }

    private void u2(int v) {
        code.write(v >>> 8);
        code.write(v);
    }

    private void adjust(int delta) {
        stack += delta;
        if (stack < 0) {
            throw new IllegalStateException("operand stack underflow");
        }
        maxStack = Math.max(maxStack, stack);
    }

    /** An instruction without operands and its stack effect. */
    CodeBuilder op(int opcode, int delta) {
        u1(opcode);
        adjust(delta);
        return this;
    }

    private CodeBuilder local(int opcode, int slot, int delta) {
        if (slot <= 3) {
            u1(0x1A + (opcode - ILOAD) * 4 + slot);   // iload_0 ... aload_3
        } else if (slot > 255) {
            u1(WIDE);
            u1(opcode);
            u2(slot);
        } else {
            u1(opcode);
            u1(slot);
        }
        adjust(delta);
        return this;
    }

    CodeBuilder aload(int slot) {
        return local(ALOAD, slot, 1);
    }

    CodeBuilder iload(int slot) {
        return local(ILOAD, slot, 1);
    }

    CodeBuilder astore(int slot) {
        if (slot <= 3) {
            return op(0x4B + slot, -1);   // astore_0 ... astore_3
        }
        if (slot > 255) {
            u1(WIDE);
            u1(0x3A);
            u2(slot);
            adjust(-1);
            return this;
        }
        u1(0x3A);
        u1(slot);
        adjust(-1);
        return this;
    }

    /** Loads a local of field type {@code t}. */
    CodeBuilder load(String t, int slot) {
        switch (t.charAt(0)) {
            case 'J': return local(LLOAD, slot, 2);
            case 'D': return local(DLOAD, slot, 2);
            case 'F': return local(FLOAD, slot, 1);
            case 'L': case '[': return local(ALOAD, slot, 1);
            default: return local(ILOAD, slot, 1);
        }
    }

    /** Loads every parameter of {@code descriptor} from {@code slot} on; returns the next free slot. */
    int loadParameters(String descriptor, int slot) {
        for (String p : parameters(descriptor)) {
            load(p, slot);
            slot += size(p);
        }
        return slot;
    }

    CodeBuilder pushInt(int v) {
        if (v >= -1 && v <= 5) {
            return op(ICONST_0 + v, 1);
        }
        if (v >= -128 && v <= 127) {
            u1(BIPUSH);
            u1(v);
        } else if (v >= -32768 && v <= 32767) {
            u1(SIPUSH);
            u2(v);
        } else {
            return ldc(cf.addInteger(v));
        }
        adjust(1);
        return this;
    }

    /** {@code ldc}/{@code ldc_w} of a one-slot constant. */
    CodeBuilder ldc(int index) {
        if (index < 256) {
            u1(LDC);
            u1(index);
        } else {
            u1(LDC_W);
            u2(index);
        }
        adjust(1);
        return this;
    }

    CodeBuilder field(int opcode, String owner, String name, String descriptor) {
        u1(opcode);
        u2(cf.addFieldref(owner, name, descriptor));
        int s = size(descriptor);
        adjust(opcode == GETSTATIC ? s : -s);
        return this;
    }

    CodeBuilder typeOp(int opcode, String className, int delta) {
        u1(opcode);
        u2(cf.addClass(className));
        adjust(delta);
        return this;
    }

    /** An invoke; {@code isInterface}: the reference is an InterfaceMethodref. */
    CodeBuilder invoke(int opcode, String owner, String name, String descriptor, boolean isInterface) {
        int ref = cf.addMethodref(owner, name, descriptor, isInterface || opcode == INVOKEINTERFACE);
        int args = parameterSlots(descriptor) + (opcode == INVOKESTATIC ? 0 : 1);
        u1(opcode);
        u2(ref);
        if (opcode == INVOKEINTERFACE) {
            u1(args);
            u1(0);
        }
        adjust(-args);
        adjust(size(returnType(descriptor)));
        return this;
    }

    /** The return instruction for a method returning {@code t} (a field descriptor or V). */
    CodeBuilder returnValue(String t) {
        switch (t.charAt(0)) {
            case 'V': return op(RETURN, 0);
            case 'J': return op(LRETURN, -2);
            case 'D': return op(DRETURN, -2);
            case 'F': return op(FRETURN, -1);
            case 'L': case '[': return op(ARETURN, -1);
            default: return op(IRETURN, -1);
        }
    }

    int newLabel() {
        labels.add(-1);
        return labels.size() - 1;
    }

    /** A conditional or unconditional branch to {@code label}. */
    CodeBuilder branch(int opcode, int label) {
        fixups.add(new int[] {code.size(), label});
        u1(opcode);
        u2(0);
        adjust(opcode == GOTO ? 0 : opcode == IF_ACMPEQ || opcode == IF_ACMPNE ? -2 : -1);
        return this;
    }

    /**
     * Places {@code label} here; the stack depth is {@code depth} from here on (the code before is
     * either a jump or has that depth). {@code locals}, when not null, gets a full frame here with
     * an empty stack (each entry from {@link #type}).
     */
    CodeBuilder mark(int label, int depth, List<byte[]> locals) {
        labels.set(label, code.size());
        stack = depth;
        if (locals != null) {
            if (depth != 0) {
                throw new IllegalStateException("frames are written with an empty stack only");
            }
            frames.add(new Object[] {label, locals});
        }
        return this;
    }

    /** The verification type of a value of field type {@code t}, as a frame holds it. */
    byte[] type(String t) {
        switch (t.charAt(0)) {
            case 'J': return new byte[] {ITEM_LONG};
            case 'D': return new byte[] {ITEM_DOUBLE};
            case 'F': return new byte[] {ITEM_FLOAT};
            case 'L': return object(t.substring(1, t.length() - 1));
            case '[': return object(t);
            default: return new byte[] {ITEM_INTEGER};
        }
    }

    /** {@code Object(className)} (an internal name, or an array descriptor). */
    byte[] object(String className) {
        int index = cf.addClass(className);
        return new byte[] {ITEM_OBJECT, (byte) (index >>> 8), (byte) index};
    }

    // ------------------------------------------------------------------ the attribute

    /** The bytes of the Code attribute (after its length): no handlers, a StackMapTable if frames were asked for. */
    byte[] toCodeAttribute() {
        byte[] body = code.toByteArray();
        if (body.length == 0 || body.length > 32767) {
            throw new IllegalStateException("code length " + body.length);
        }
        for (int[] f : fixups) {
            int target = labels.get(f[1]);
            if (target < 0) {
                throw new IllegalStateException("branch to a label never placed");
            }
            int offset = target - f[0];
            body[f[0] + 1] = (byte) (offset >>> 8);
            body[f[0] + 2] = (byte) offset;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(body.length + 64);
        DataOutputStream out = new DataOutputStream(bytes);
        try {
            out.writeShort(maxStack);
            out.writeShort(maxLocals);
            out.writeInt(body.length);
            out.write(body);
            out.writeShort(0);   // no exception handlers
            if (frames.isEmpty()) {
                out.writeShort(0);
            } else {
                out.writeShort(1);
                out.writeShort(cf.addUtf8("StackMapTable"));
                byte[] table = stackMapTable();
                out.writeInt(table.length);
                out.write(table);
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return bytes.toByteArray();
    }

    @SuppressWarnings("unchecked")
    private byte[] stackMapTable() throws IOException {
        frames.sort((a, b) -> Integer.compare(labels.get((Integer) a[0]), labels.get((Integer) b[0])));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        int previous = -1;
        int count = 0;
        ByteArrayOutputStream entries = new ByteArrayOutputStream();
        DataOutputStream e = new DataOutputStream(entries);
        for (Object[] f : frames) {
            int offset = labels.get((Integer) f[0]);
            if (offset == previous) {
                continue;   // two labels at one place share the frame
            }
            List<byte[]> locals = (List<byte[]>) f[1];
            e.writeByte(255);   // full_frame
            e.writeShort(previous < 0 ? offset : offset - previous - 1);
            e.writeShort(locals.size());
            for (byte[] t : locals) {
                e.write(t);
            }
            e.writeShort(0);    // empty stack
            previous = offset;
            count++;
        }
        out.writeShort(count);
        entries.writeTo(out);
        return bytes.toByteArray();
    }
}
