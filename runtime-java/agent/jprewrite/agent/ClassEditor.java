package jprewrite.agent;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A small class-file editor for the agent's own contract writer ({@link ContractWriter}): it
 * parses the constant pool (each entry kept as its raw bytes), appends entries (find-or-append),
 * keeps fields, methods and attributes byte for byte, appends new members, and writes the class.
 * Nothing existing is ever decoded into objects and re-encoded, so what it does not understand it
 * copies unchanged. Every malformation is an {@link IllegalArgumentException}.
 */
final class ClassEditor {
    static final int ACC_PUBLIC = 0x0001, ACC_PRIVATE = 0x0002, ACC_PROTECTED = 0x0004, ACC_STATIC = 0x0008,
            ACC_FINAL = 0x0010, ACC_SUPER = 0x0020, ACC_SYNCHRONIZED = 0x0020, ACC_VOLATILE = 0x0040,
            ACC_BRIDGE = 0x0040, ACC_TRANSIENT = 0x0080, ACC_VARARGS = 0x0080, ACC_NATIVE = 0x0100,
            ACC_INTERFACE = 0x0200, ACC_ABSTRACT = 0x0400, ACC_STRICT = 0x0800, ACC_SYNTHETIC = 0x1000,
            ACC_ANNOTATION = 0x2000, ACC_ENUM = 0x4000, ACC_MODULE = 0x8000;

    static final int UTF8 = 1, INTEGER = 3, FLOAT = 4, LONG = 5, DOUBLE = 6, CLASS = 7, STRING = 8,
            FIELDREF = 9, METHODREF = 10, INTERFACE_METHODREF = 11, NAME_AND_TYPE = 12, METHOD_HANDLE = 15,
            METHOD_TYPE = 16, DYNAMIC = 17, INVOKE_DYNAMIC = 18, MODULE = 19, PACKAGE = 20;

    /** One attribute: its name index and its bytes (after the u4 length), copied verbatim. */
    static final class Attribute {
        final int nameIndex;
        final byte[] info;

        Attribute(int nameIndex, byte[] info) {
            this.nameIndex = nameIndex;
            this.info = info;
        }
    }

    /** A field or a method. */
    static final class Member {
        int access;
        final int nameIndex;
        final int descriptorIndex;
        final List<Attribute> attributes;

        Member(int access, int nameIndex, int descriptorIndex, List<Attribute> attributes) {
            this.access = access;
            this.nameIndex = nameIndex;
            this.descriptorIndex = descriptorIndex;
            this.attributes = attributes;
        }
    }

    int minor;
    int major;
    /** Raw entries (tag + contents); index 0 and the second slot of a Long/Double are null. */
    private final List<byte[]> pool = new ArrayList<>();
    private Map<String, Integer> lookup;
    int access;
    int thisClass;
    int superClass;
    final List<Integer> interfaces = new ArrayList<>();
    final List<Member> fields = new ArrayList<>();
    final List<Member> methods = new ArrayList<>();
    final List<Attribute> attributes = new ArrayList<>();

    /** A new, empty class (constant pool with the unused entry 0 only). */
    ClassEditor(int major, int minor) {
        this.major = major;
        this.minor = minor;
        pool.add(null);
    }

    /** Parses a class file; {@link IllegalArgumentException} when it is not a well-formed one. */
    static ClassEditor parse(byte[] b) {
        try {
            return new Reader(b).read();
        } catch (IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("truncated class file");
        }
    }

    private static final class Reader {
        final byte[] b;
        int p;

        Reader(byte[] b) {
            this.b = b;
        }

        int u1() {
            if (p >= b.length) {
                throw new IndexOutOfBoundsException();
            }
            return b[p++] & 0xFF;
        }

        int u2() {
            return (u1() << 8) | u1();
        }

        int u4() {
            return (u2() << 16) | u2();
        }

        byte[] take(int n) {
            if (n < 0 || n > b.length - p) {
                throw new IndexOutOfBoundsException();
            }
            byte[] out = new byte[n];
            System.arraycopy(b, p, out, 0, n);
            p += n;
            return out;
        }

        ClassEditor read() {
            if (u4() != 0xCAFEBABE) {
                throw new IllegalArgumentException("not a class file (bad magic)");
            }
            int minor = u2();
            int major = u2();
            ClassEditor c = new ClassEditor(major, minor);
            int count = u2();
            if (count == 0) {
                throw new IllegalArgumentException("empty constant pool");
            }
            for (int i = 1; i < count; i++) {
                int start = p;
                int tag = u1();
                switch (tag) {
                    case UTF8: { int n = u2(); p += n; break; }
                    case INTEGER: case FLOAT: case FIELDREF: case METHODREF: case INTERFACE_METHODREF:
                    case NAME_AND_TYPE: case DYNAMIC: case INVOKE_DYNAMIC: p += 4; break;
                    case LONG: case DOUBLE: p += 8; break;
                    case CLASS: case STRING: case METHOD_TYPE: case MODULE: case PACKAGE: p += 2; break;
                    case METHOD_HANDLE: p += 3; break;
                    default: throw new IllegalArgumentException("unknown constant pool tag " + tag + " at entry " + i);
                }
                if (p > b.length) {
                    throw new IndexOutOfBoundsException();
                }
                byte[] raw = new byte[p - start];
                System.arraycopy(b, start, raw, 0, raw.length);
                c.pool.add(raw);
                if (tag == LONG || tag == DOUBLE) {
                    c.pool.add(null);
                    i++;
                }
            }
            if (c.pool.size() != count) {
                throw new IllegalArgumentException("a Long or Double takes the last constant pool slot");
            }
            c.access = u2();
            c.thisClass = u2();
            c.superClass = u2();
            c.checkTag(c.thisClass, CLASS);
            if (c.superClass != 0) {
                c.checkTag(c.superClass, CLASS);
            }
            int n = u2();
            for (int i = 0; i < n; i++) {
                int k = u2();
                c.checkTag(k, CLASS);
                c.interfaces.add(k);
            }
            readMembers(c, c.fields);
            readMembers(c, c.methods);
            readAttributes(c, c.attributes);
            if (p != b.length) {
                throw new IllegalArgumentException("bytes after the end of the class file");
            }
            return c;
        }

        void readMembers(ClassEditor c, List<Member> into) {
            int n = u2();
            for (int i = 0; i < n; i++) {
                int access = u2();
                int name = u2();
                int desc = u2();
                c.checkTag(name, UTF8);
                c.checkTag(desc, UTF8);
                List<Attribute> attrs = new ArrayList<>();
                readAttributes(c, attrs);
                into.add(new Member(access, name, desc, attrs));
            }
        }

        void readAttributes(ClassEditor c, List<Attribute> into) {
            int n = u2();
            for (int i = 0; i < n; i++) {
                int name = u2();
                c.checkTag(name, UTF8);
                int length = u4();
                into.add(new Attribute(name, take(length)));
            }
        }
    }

    private void checkTag(int index, int tag) {
        if (index <= 0 || index >= pool.size() || pool.get(index) == null || (pool.get(index)[0] & 0xFF) != tag) {
            throw new IllegalArgumentException("constant pool index " + index + " is not of kind " + tag);
        }
    }

    // ------------------------------------------------------------------ reading the pool

    int tag(int index) {
        byte[] e = index > 0 && index < pool.size() ? pool.get(index) : null;
        return e == null ? 0 : e[0] & 0xFF;
    }

    private int ref(int index, int at) {
        byte[] e = pool.get(index);
        return ((e[at] & 0xFF) << 8) | (e[at + 1] & 0xFF);
    }

    /** The string of a Utf8 entry (modified UTF-8). */
    String utf8(int index) {
        checkTag(index, UTF8);
        byte[] e = pool.get(index);
        try {
            return new DataInputStream(new ByteArrayInputStream(e, 1, e.length - 1)).readUTF();
        } catch (IOException ex) {
            throw new IllegalArgumentException("malformed Utf8 entry " + index);
        }
    }

    /** The name of a Class entry (internal form). */
    String className(int index) {
        checkTag(index, CLASS);
        return utf8(ref(index, 1));
    }

    String name() {
        return className(thisClass);
    }

    String superName() {
        return superClass == 0 ? null : className(superClass);
    }

    String name(Member m) {
        return utf8(m.nameIndex);
    }

    String descriptor(Member m) {
        return utf8(m.descriptorIndex);
    }

    /** The first attribute named {@code name} of a member (or of the class when {@code m} is null). */
    Attribute attribute(Member m, String name) {
        for (Attribute a : m == null ? attributes : m.attributes) {
            if (name.equals(utf8(a.nameIndex))) {
                return a;
            }
        }
        return null;
    }

    boolean isInterface() {
        return (access & ACC_INTERFACE) != 0;
    }

    // ------------------------------------------------------------------ appending to the pool

    private int add(byte[] raw) {
        if (lookup == null) {
            lookup = new HashMap<>();
            for (int i = 1; i < pool.size(); i++) {
                byte[] e = pool.get(i);
                if (e != null) {
                    lookup.putIfAbsent(key(e), i);
                }
            }
        }
        String k = key(raw);
        Integer found = lookup.get(k);
        if (found != null) {
            return found;
        }
        int tag = raw[0];
        int index = pool.size();
        int needed = index + (tag == LONG || tag == DOUBLE ? 2 : 1);
        if (needed > 0xFFFF) {
            throw new IllegalArgumentException("the constant pool would exceed 65535 entries");
        }
        pool.add(raw);
        if (tag == LONG || tag == DOUBLE) {
            pool.add(null);
        }
        lookup.put(k, index);
        return index;
    }

    private static String key(byte[] raw) {
        return new String(raw, StandardCharsets.ISO_8859_1);
    }

    int addUtf8(String s) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length() + 3);
        try {
            out.write(UTF8);
            new DataOutputStream(out).writeUTF(s);
        } catch (IOException e) {   // longer than 65535 bytes
            throw new IllegalArgumentException("string too long for the constant pool");
        }
        return add(out.toByteArray());
    }

    private int addRef(int tag, int a) {
        return add(new byte[] {(byte) tag, (byte) (a >>> 8), (byte) a});
    }

    private int addRef(int tag, int a, int b) {
        return add(new byte[] {(byte) tag, (byte) (a >>> 8), (byte) a, (byte) (b >>> 8), (byte) b});
    }

    int addClass(String internalName) {
        return addRef(CLASS, addUtf8(internalName));
    }

    int addString(String s) {
        return addRef(STRING, addUtf8(s));
    }

    int addInteger(int v) {
        return add(new byte[] {INTEGER, (byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v});
    }

    int addLong(long v) {
        byte[] raw = new byte[9];
        raw[0] = LONG;
        for (int i = 0; i < 8; i++) {
            raw[1 + i] = (byte) (v >>> (56 - 8 * i));
        }
        return add(raw);
    }

    int addNameAndType(String name, String descriptor) {
        return addRef(NAME_AND_TYPE, addUtf8(name), addUtf8(descriptor));
    }

    int addFieldref(String owner, String name, String descriptor) {
        return addRef(FIELDREF, addClass(owner), addNameAndType(name, descriptor));
    }

    int addMethodref(String owner, String name, String descriptor, boolean isInterface) {
        return addRef(isInterface ? INTERFACE_METHODREF : METHODREF, addClass(owner), addNameAndType(name, descriptor));
    }

    // ------------------------------------------------------------------ members

    Member findMethod(String name, String descriptor) {
        for (Member m : methods) {
            if (name.equals(name(m)) && descriptor.equals(descriptor(m))) {
                return m;
            }
        }
        return null;
    }

    /** Appends a method whose only attribute is {@code code} (a Code attribute's bytes, see {@link CodeBuilder}). */
    Member addMethod(int access, String name, String descriptor, byte[] code) {
        List<Attribute> attrs = new ArrayList<>();
        if (code != null) {
            attrs.add(new Attribute(addUtf8("Code"), code));
        }
        Member m = new Member(access, addUtf8(name), addUtf8(descriptor), attrs);
        methods.add(m);
        return m;
    }

    Member addField(int access, String name, String descriptor, List<Attribute> attrs) {
        Member f = new Member(access, addUtf8(name), addUtf8(descriptor), attrs);
        fields.add(f);
        return f;
    }

    // ------------------------------------------------------------------ writing

    byte[] toBytes() {
        if (fields.size() > 0xFFFF || methods.size() > 0xFFFF) {
            throw new IllegalArgumentException("too many members");
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(8192);
        DataOutputStream out = new DataOutputStream(bytes);
        try {
            out.writeInt(0xCAFEBABE);
            out.writeShort(minor);
            out.writeShort(major);
            out.writeShort(pool.size());
            for (byte[] e : pool) {
                if (e != null) {
                    out.write(e);
                }
            }
            out.writeShort(access);
            out.writeShort(thisClass);
            out.writeShort(superClass);
            out.writeShort(interfaces.size());
            for (int i : interfaces) {
                out.writeShort(i);
            }
            writeMembers(out, fields);
            writeMembers(out, methods);
            writeAttributes(out, attributes);
        } catch (IOException e) {
            throw new IllegalStateException(e);   // cannot happen in memory
        }
        return bytes.toByteArray();
    }

    private static void writeMembers(DataOutputStream out, List<Member> members) throws IOException {
        out.writeShort(members.size());
        for (Member m : members) {
            out.writeShort(m.access);
            out.writeShort(m.nameIndex);
            out.writeShort(m.descriptorIndex);
            writeAttributes(out, m.attributes);
        }
    }

    private static void writeAttributes(DataOutputStream out, List<Attribute> attrs) throws IOException {
        if (attrs.size() > 0xFFFF) {
            throw new IllegalArgumentException("too many attributes");
        }
        out.writeShort(attrs.size());
        for (Attribute a : attrs) {
            out.writeShort(a.nameIndex);
            out.writeInt(a.info.length);
            out.write(a.info);
        }
    }
}
