package jprewrite.agent;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The default {@code serialVersionUID} of a class file (Java Object Serialization Specification
 * 4.6, as JDK 17's {@code ObjectStreamClass.computeDefaultSUID} computes it), and whether the
 * contract writer must pin it before adding methods. The Java twin of
 * {@code rewriter/instrument/serial_uid.py} (see there for the details that differ from a first
 * reading of the specification); the Python rewriter pins the UID before every rewrite, the
 * agent's contract writer does the same.
 */
final class SerialUid {
    static final String SERIALIZABLE = "java/io/Serializable";
    static final String UID_NAME = "serialVersionUID";

    private static final int CLASS_MASK = ClassEditor.ACC_PUBLIC | ClassEditor.ACC_FINAL | ClassEditor.ACC_INTERFACE
            | ClassEditor.ACC_ABSTRACT;
    private static final int FIELD_MASK = ClassEditor.ACC_PUBLIC | ClassEditor.ACC_PRIVATE | ClassEditor.ACC_PROTECTED
            | ClassEditor.ACC_STATIC | ClassEditor.ACC_FINAL | ClassEditor.ACC_VOLATILE | ClassEditor.ACC_TRANSIENT;
    private static final int METHOD_MASK = ClassEditor.ACC_PUBLIC | ClassEditor.ACC_PRIVATE
            | ClassEditor.ACC_PROTECTED | ClassEditor.ACC_STATIC | ClassEditor.ACC_FINAL
            | ClassEditor.ACC_SYNCHRONIZED | ClassEditor.ACC_NATIVE | ClassEditor.ACC_ABSTRACT | ClassEditor.ACC_STRICT;

    /** Answers "is the class named {@code name} a subtype of {@code type}?": TRUE, FALSE, or null (unknown). */
    interface Supertypes {
        Boolean isSubtype(String name, Class<?> type);
    }

    /**
     * Must a rewrite that adds members pin the UID? A serializable class (an unknown supertype counts
     * as serializable, as in Python) that is not an interface, an enum or a record, and declares no
     * field named {@code serialVersionUID}.
     */
    static boolean needsPinning(ClassEditor cf, Supertypes supertypes) {
        if (cf.isInterface()) {
            return false;
        }
        for (ClassEditor.Member f : cf.fields) {
            if (UID_NAME.equals(cf.name(f))) {
                return false;
            }
        }
        if (!isSerializable(cf, supertypes)) {
            return false;
        }
        return !isEnum(cf, supertypes) && !isRecord(cf);
    }

    private static boolean isSerializable(ClassEditor cf, Supertypes supertypes) {
        List<String> supers = new ArrayList<>();
        if (cf.superClass != 0) {
            supers.add(cf.superName());
        }
        for (int i : cf.interfaces) {
            supers.add(cf.className(i));
        }
        if (SERIALIZABLE.equals(cf.name()) || supers.contains(SERIALIZABLE)) {
            return true;
        }
        boolean unknown = false;
        for (String s : supers) {
            Boolean r = supertypes.isSubtype(s, java.io.Serializable.class);
            if (r == null) {
                unknown = true;
            } else if (r) {
                return true;
            }
        }
        return unknown;
    }

    private static boolean isEnum(ClassEditor cf, Supertypes supertypes) {
        String sup = cf.superName();
        if (sup == null) {
            return false;
        }
        if (sup.equals("java/lang/Enum")) {
            return true;
        }
        Boolean r = supertypes.isSubtype(sup, Enum.class);
        return r != null ? r : (cf.access & ClassEditor.ACC_ENUM) != 0;
    }

    private static boolean isRecord(ClassEditor cf) {
        return "java/lang/Record".equals(cf.superName()) && cf.attribute(null, "Record") != null;
    }

    /** {@code Class.getModifiers()}: the class's own InnerClasses flags if it is listed there. */
    private static int classModifiers(ClassEditor cf) {
        int access = cf.access;
        ClassEditor.Attribute inner = cf.attribute(null, "InnerClasses");
        if (inner != null) {
            byte[] b = inner.info;
            int n = u2(b, 0);
            String name = cf.name();
            for (int i = 0; i < n; i++) {
                int at = 2 + 8 * i;
                int innerClass = u2(b, at);
                if (innerClass != 0 && name.equals(cf.className(innerClass))) {
                    access = u2(b, at + 6);
                    break;
                }
            }
        }
        return access & ~ClassEditor.ACC_SUPER & 0x7FFF;
    }

    private static int u2(byte[] b, int p) {
        return ((b[p] & 0xFF) << 8) | (b[p + 1] & 0xFF);
    }

    private static boolean hasStaticInitializer(ClassEditor cf) {
        for (ClassEditor.Member m : cf.methods) {
            if ("<clinit>".equals(cf.name(m)) && "()V".equals(cf.descriptor(m))) {
                return (m.access & ClassEditor.ACC_STATIC) != 0 || cf.major < 51;
            }
        }
        return false;
    }

    /** The section 4.6 hash of the class as it is now (call it before adding anything). */
    static long hash(ClassEditor cf) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeUTF(cf.name().replace('/', '.'));

            List<ClassEditor.Member> methods = new ArrayList<>();
            List<ClassEditor.Member> constructors = new ArrayList<>();
            for (ClassEditor.Member m : cf.methods) {
                String n = cf.name(m);
                if (n.equals("<init>")) {
                    constructors.add(m);
                } else if (!n.equals("<clinit>")) {
                    methods.add(m);
                }
            }
            int mods = classModifiers(cf) & CLASS_MASK;
            if ((mods & ClassEditor.ACC_INTERFACE) != 0) {
                mods = methods.isEmpty() ? mods & ~ClassEditor.ACC_ABSTRACT : mods | ClassEditor.ACC_ABSTRACT;
            }
            out.writeInt(mods);

            List<String> interfaces = new ArrayList<>();
            for (int i : cf.interfaces) {
                interfaces.add(cf.className(i).replace('/', '.'));
            }
            interfaces.sort(null);
            for (String i : interfaces) {
                out.writeUTF(i);
            }

            List<ClassEditor.Member> fields = new ArrayList<>(cf.fields);
            fields.sort(Comparator.comparing(cf::name));   // stable, as Arrays.sort on objects
            for (ClassEditor.Member f : fields) {
                int m = f.access & FIELD_MASK;
                if ((m & ClassEditor.ACC_PRIVATE) == 0 || (m & (ClassEditor.ACC_STATIC | ClassEditor.ACC_TRANSIENT)) == 0) {
                    out.writeUTF(cf.name(f));
                    out.writeInt(m);
                    out.writeUTF(cf.descriptor(f));   // (sic: field descriptors keep their '/')
                }
            }
            if (hasStaticInitializer(cf)) {
                out.writeUTF("<clinit>");
                out.writeInt(ClassEditor.ACC_STATIC);
                out.writeUTF("()V");
            }
            constructors.sort(Comparator.comparing(cf::descriptor));
            for (ClassEditor.Member m : constructors) {
                int f = m.access & METHOD_MASK;
                if ((f & ClassEditor.ACC_PRIVATE) == 0) {
                    out.writeUTF("<init>");
                    out.writeInt(f);
                    out.writeUTF(cf.descriptor(m).replace('/', '.'));
                }
            }
            methods.sort(Comparator.comparing((ClassEditor.Member m) -> cf.name(m)).thenComparing(cf::descriptor));
            for (ClassEditor.Member m : methods) {
                int f = m.access & METHOD_MASK;
                if ((f & ClassEditor.ACC_PRIVATE) == 0) {
                    out.writeUTF(cf.name(m));
                    out.writeInt(f);
                    out.writeUTF(cf.descriptor(m).replace('/', '.'));
                }
            }
            out.flush();
            byte[] sha = MessageDigest.getInstance("SHA").digest(bytes.toByteArray());
            long h = 0;
            for (int i = Math.min(sha.length, 8) - 1; i >= 0; i--) {
                h = (h << 8) | (sha[i] & 0xFF);
            }
            return h;
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot compute the serialVersionUID: " + e.getMessage());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("no SHA-1", e);
        }
    }

    /** Adds {@code private static final long serialVersionUID = value} (with a ConstantValue). */
    static void pin(ClassEditor cf, long value) {
        List<ClassEditor.Attribute> attrs = new ArrayList<>();
        int index = cf.addLong(value);
        attrs.add(new ClassEditor.Attribute(cf.addUtf8("ConstantValue"), new byte[] {(byte) (index >>> 8), (byte) index}));
        cf.addField(ClassEditor.ACC_PRIVATE | ClassEditor.ACC_STATIC | ClassEditor.ACC_FINAL, UID_NAME, "J", attrs);
    }

    private SerialUid() {
    }
}
