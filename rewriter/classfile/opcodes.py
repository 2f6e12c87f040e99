"""JVM opcodes (JVMS 6.5): numbers, mnemonics and operand formats.

Everything here is a flat table indexed by the opcode byte, so the codec's hot
loop does one list index per instruction instead of a dict lookup or a chain
of comparisons. Unassigned opcodes (203-253) have name ``None`` and format
:data:`FMT_INVALID`; ``breakpoint`` (202) and ``impdep1/2`` (254, 255) are
reserved for debuggers and JVM internals but are *assigned*, so the codec
keeps them when they occur (some tools leave them in class files).

The second half is the one home of the *per-opcode facts* the layers above
read: which instructions branch, end the flow, return, invoke, may throw, load
or store locals, and what each does to the operand stack (:data:`SIGNATURES`,
:data:`STACK_EFFECTS`). The editor (``max_stack``), the type flow, the basic
blocks and the verifier all take their facts from here; where a hot loop wants
its own dispatch table, it derives it from these at import time.
"""

from __future__ import annotations

from . import constants as _cp
from .frames import Double, Float, Integer, Long, Null, Object, VType

# ----------------------------------------------------------------- opcodes
NOP = 0
ACONST_NULL = 1
ICONST_M1 = 2
ICONST_0 = 3
ICONST_1 = 4
ICONST_2 = 5
ICONST_3 = 6
ICONST_4 = 7
ICONST_5 = 8
LCONST_0 = 9
LCONST_1 = 10
FCONST_0 = 11
FCONST_1 = 12
FCONST_2 = 13
DCONST_0 = 14
DCONST_1 = 15
BIPUSH = 16
SIPUSH = 17
LDC = 18
LDC_W = 19
LDC2_W = 20
ILOAD = 21
LLOAD = 22
FLOAD = 23
DLOAD = 24
ALOAD = 25
ILOAD_0 = 26
ILOAD_1 = 27
ILOAD_2 = 28
ILOAD_3 = 29
LLOAD_0 = 30
LLOAD_1 = 31
LLOAD_2 = 32
LLOAD_3 = 33
FLOAD_0 = 34
FLOAD_1 = 35
FLOAD_2 = 36
FLOAD_3 = 37
DLOAD_0 = 38
DLOAD_1 = 39
DLOAD_2 = 40
DLOAD_3 = 41
ALOAD_0 = 42
ALOAD_1 = 43
ALOAD_2 = 44
ALOAD_3 = 45
IALOAD = 46
LALOAD = 47
FALOAD = 48
DALOAD = 49
AALOAD = 50
BALOAD = 51
CALOAD = 52
SALOAD = 53
ISTORE = 54
LSTORE = 55
FSTORE = 56
DSTORE = 57
ASTORE = 58
ISTORE_0 = 59
ISTORE_1 = 60
ISTORE_2 = 61
ISTORE_3 = 62
LSTORE_0 = 63
LSTORE_1 = 64
LSTORE_2 = 65
LSTORE_3 = 66
FSTORE_0 = 67
FSTORE_1 = 68
FSTORE_2 = 69
FSTORE_3 = 70
DSTORE_0 = 71
DSTORE_1 = 72
DSTORE_2 = 73
DSTORE_3 = 74
ASTORE_0 = 75
ASTORE_1 = 76
ASTORE_2 = 77
ASTORE_3 = 78
IASTORE = 79
LASTORE = 80
FASTORE = 81
DASTORE = 82
AASTORE = 83
BASTORE = 84
CASTORE = 85
SASTORE = 86
POP = 87
POP2 = 88
DUP = 89
DUP_X1 = 90
DUP_X2 = 91
DUP2 = 92
DUP2_X1 = 93
DUP2_X2 = 94
SWAP = 95
IADD = 96
LADD = 97
FADD = 98
DADD = 99
ISUB = 100
LSUB = 101
FSUB = 102
DSUB = 103
IMUL = 104
LMUL = 105
FMUL = 106
DMUL = 107
IDIV = 108
LDIV = 109
FDIV = 110
DDIV = 111
IREM = 112
LREM = 113
FREM = 114
DREM = 115
INEG = 116
LNEG = 117
FNEG = 118
DNEG = 119
ISHL = 120
LSHL = 121
ISHR = 122
LSHR = 123
IUSHR = 124
LUSHR = 125
IAND = 126
LAND = 127
IOR = 128
LOR = 129
IXOR = 130
LXOR = 131
IINC = 132
I2L = 133
I2F = 134
I2D = 135
L2I = 136
L2F = 137
L2D = 138
F2I = 139
F2L = 140
F2D = 141
D2I = 142
D2L = 143
D2F = 144
I2B = 145
I2C = 146
I2S = 147
LCMP = 148
FCMPL = 149
FCMPG = 150
DCMPL = 151
DCMPG = 152
IFEQ = 153
IFNE = 154
IFLT = 155
IFGE = 156
IFGT = 157
IFLE = 158
IF_ICMPEQ = 159
IF_ICMPNE = 160
IF_ICMPLT = 161
IF_ICMPGE = 162
IF_ICMPGT = 163
IF_ICMPLE = 164
IF_ACMPEQ = 165
IF_ACMPNE = 166
GOTO = 167
JSR = 168
RET = 169
TABLESWITCH = 170
LOOKUPSWITCH = 171
IRETURN = 172
LRETURN = 173
FRETURN = 174
DRETURN = 175
ARETURN = 176
RETURN = 177
GETSTATIC = 178
PUTSTATIC = 179
GETFIELD = 180
PUTFIELD = 181
INVOKEVIRTUAL = 182
INVOKESPECIAL = 183
INVOKESTATIC = 184
INVOKEINTERFACE = 185
INVOKEDYNAMIC = 186
NEW = 187
NEWARRAY = 188
ANEWARRAY = 189
ARRAYLENGTH = 190
ATHROW = 191
CHECKCAST = 192
INSTANCEOF = 193
MONITORENTER = 194
MONITOREXIT = 195
WIDE = 196
MULTIANEWARRAY = 197
IFNULL = 198
IFNONNULL = 199
GOTO_W = 200
JSR_W = 201
BREAKPOINT = 202
IMPDEP1 = 254
IMPDEP2 = 255

# ------------------------------------------------------------ operand formats
# The shape of the bytes after the opcode. ``wide`` changes the shape of the
# FMT_LOCAL and FMT_IINC opcodes only (see WIDENABLE).
FMT_INVALID = 0  #: not an assigned opcode
FMT_NONE = 1  #: no operands
FMT_LOCAL = 2  #: u1 local-variable index (u2 under wide); also ``ret``
FMT_IINC = 3  #: u1 local index, s1 increment (u2, s2 under wide)
FMT_BYTE = 4  #: bipush: s1 immediate
FMT_SHORT = 5  #: sipush: s2 immediate
FMT_CP1 = 6  #: ldc: u1 constant-pool index
FMT_CP2 = 7  #: u2 constant-pool index (ldc_w, field/method refs, new, ...)
FMT_NEWARRAY = 8  #: newarray: u1 array type code (T_BOOLEAN=4 ... T_LONG=11)
FMT_BRANCH = 9  #: s2 branch offset (if*, goto, jsr)
FMT_BRANCH_W = 10  #: s4 branch offset (goto_w, jsr_w)
FMT_TABLESWITCH = 11  #: padding, default, low, high, offsets
FMT_LOOKUPSWITCH = 12  #: padding, default, npairs, (key, offset) pairs
FMT_INVOKEINTERFACE = 13  #: u2 cp index, u1 count, u1 zero
FMT_INVOKEDYNAMIC = 14  #: u2 cp index, u2 zero
FMT_MULTIANEWARRAY = 15  #: u2 cp index, u1 dimensions
FMT_WIDE = 16  #: the wide prefix itself

FORMAT_NAMES: tuple[str, ...] = (
    "invalid",
    "none",
    "local",
    "iinc",
    "byte",
    "short",
    "cp1",
    "cp2",
    "newarray",
    "branch",
    "branch_w",
    "tableswitch",
    "lookupswitch",
    "invokeinterface",
    "invokedynamic",
    "multianewarray",
    "wide",
)


def _build_tables() -> tuple[tuple[str | None, ...], tuple[int, ...]]:
    g = globals()
    names: list[str | None] = [None] * 256
    for key, value in g.items():
        if key.isupper() and not key.startswith(("FMT_", "T_", "OPCODE")) and isinstance(value, int):
            names[value] = key.lower()
    fmt = [FMT_INVALID] * 256
    for op, name in enumerate(names):
        if name is not None:
            fmt[op] = FMT_NONE
    for op in (ILOAD, LLOAD, FLOAD, DLOAD, ALOAD, ISTORE, LSTORE, FSTORE, DSTORE, ASTORE, RET):
        fmt[op] = FMT_LOCAL
    fmt[IINC] = FMT_IINC
    fmt[BIPUSH] = FMT_BYTE
    fmt[SIPUSH] = FMT_SHORT
    fmt[LDC] = FMT_CP1
    for op in (
        LDC_W,
        LDC2_W,
        GETSTATIC,
        PUTSTATIC,
        GETFIELD,
        PUTFIELD,
        INVOKEVIRTUAL,
        INVOKESPECIAL,
        INVOKESTATIC,
        NEW,
        ANEWARRAY,
        CHECKCAST,
        INSTANCEOF,
    ):
        fmt[op] = FMT_CP2
    fmt[NEWARRAY] = FMT_NEWARRAY
    for op in range(IFEQ, JSR + 1):
        fmt[op] = FMT_BRANCH
    fmt[IFNULL] = fmt[IFNONNULL] = FMT_BRANCH
    fmt[GOTO_W] = fmt[JSR_W] = FMT_BRANCH_W
    fmt[TABLESWITCH] = FMT_TABLESWITCH
    fmt[LOOKUPSWITCH] = FMT_LOOKUPSWITCH
    fmt[INVOKEINTERFACE] = FMT_INVOKEINTERFACE
    fmt[INVOKEDYNAMIC] = FMT_INVOKEDYNAMIC
    fmt[MULTIANEWARRAY] = FMT_MULTIANEWARRAY
    fmt[WIDE] = FMT_WIDE
    return tuple(names), tuple(fmt)


#: Mnemonic of each opcode byte (``None`` if unassigned).
OPCODE_NAMES: tuple[str | None, ...]
#: Operand format (FMT_*) of each opcode byte.
FORMATS: tuple[int, ...]
OPCODE_NAMES, FORMATS = _build_tables()

#: Mnemonic -> opcode byte.
OPCODES_BY_NAME: dict[str, int] = {n: op for op, n in enumerate(OPCODE_NAMES) if n is not None}

#: Length in bytes (opcode included) of each fixed-size, non-wide instruction;
#: 0 for switches, ``wide`` and unassigned opcodes, whose length depends on context.
LENGTHS: tuple[int, ...] = tuple(
    {
        FMT_NONE: 1,
        FMT_LOCAL: 2,
        FMT_IINC: 3,
        FMT_BYTE: 2,
        FMT_SHORT: 3,
        FMT_CP1: 2,
        FMT_CP2: 3,
        FMT_NEWARRAY: 2,
        FMT_BRANCH: 3,
        FMT_BRANCH_W: 5,
        FMT_INVOKEINTERFACE: 5,
        FMT_INVOKEDYNAMIC: 5,
        FMT_MULTIANEWARRAY: 4,
    }.get(f, 0)
    for f in FORMATS
)

#: Opcodes that may follow ``wide`` (JVMS 6.5.wide).
WIDENABLE: frozenset[int] = frozenset(op for op in range(256) if FORMATS[op] in (FMT_LOCAL, FMT_IINC))


# newarray type codes (JVMS Table 6.5.newarray-A)
T_BOOLEAN = 4
T_CHAR = 5
T_FLOAT = 6
T_DOUBLE = 7
T_BYTE = 8
T_SHORT = 9
T_INT = 10
T_LONG = 11
#: newarray type code -> Java type name, as javap prints it.
NEWARRAY_TYPE_NAMES: dict[int, str] = {
    T_BOOLEAN: "boolean",
    T_CHAR: "char",
    T_FLOAT: "float",
    T_DOUBLE: "double",
    T_BYTE: "byte",
    T_SHORT: "short",
    T_INT: "int",
    T_LONG: "long",
}


def opcode_name(opcode: int) -> str:
    """Mnemonic of ``opcode``, or ``<unknown N>`` for unassigned bytes (for messages)."""
    name = OPCODE_NAMES[opcode] if 0 <= opcode < 256 else None
    return name if name is not None else f"<unknown {opcode}>"


# ======================================================================= per-opcode facts
# Kinds of instructions. Symbolic code bodies (the editor's) use only the general forms of
# loads, stores, goto, jsr and ldc; the sets still list every form, for concrete code.

#: ``goto`` and ``goto_w``.
GOTO_OPCODES: frozenset[int] = frozenset((GOTO, GOTO_W))
#: ``jsr`` and ``jsr_w``: calls of a JVM subroutine (class files before version 50).
JSR_OPCODES: frozenset[int] = frozenset((JSR, JSR_W))
#: ``jsr``, ``jsr_w`` and ``ret``: a return address cannot be written in a frame.
SUBROUTINE_OPCODES: frozenset[int] = JSR_OPCODES | {RET}
#: The two-way branches ``if*`` (a taken edge and a fall-through).
CONDITIONAL_BRANCH_OPCODES: frozenset[int] = frozenset((*range(IFEQ, IF_ACMPNE + 1), IFNULL, IFNONNULL))
#: Opcodes whose operand is a branch target (2- or 4-byte offset), jsr included.
BRANCH_OPCODES: frozenset[int] = frozenset(op for op in range(256) if FORMATS[op] in (FMT_BRANCH, FMT_BRANCH_W))
SWITCH_OPCODES: frozenset[int] = frozenset((TABLESWITCH, LOOKUPSWITCH))
#: Instructions whose operands name code positions: branches, jsr and switches.
JUMP_OPCODES: frozenset[int] = BRANCH_OPCODES | SWITCH_OPCODES
#: ``ireturn`` ... ``return``.
RETURN_OPCODES: frozenset[int] = frozenset(range(IRETURN, RETURN + 1))
#: Instructions after which control never falls through to the next one ("ends the flow"):
#: goto, switches, returns, athrow, ret. (``jsr`` does come back, after ``ret``.)
UNCONDITIONAL_OPCODES: frozenset[int] = GOTO_OPCODES | SWITCH_OPCODES | RETURN_OPCODES | {ATHROW, RET}
#: Instructions that may transfer control elsewhere than to the next instruction: every
#: branch (jsr included), switch, return, athrow and ret. They end a basic block.
CONTROL_OPCODES: frozenset[int] = BRANCH_OPCODES | SWITCH_OPCODES | RETURN_OPCODES | {ATHROW, RET}
#: The method invocations, ``invokedynamic`` included (its call site invokes a method).
INVOKE_OPCODES: frozenset[int] = frozenset((INVOKEVIRTUAL, INVOKESPECIAL, INVOKESTATIC, INVOKEINTERFACE, INVOKEDYNAMIC))
#: Field access: ``getstatic``, ``putstatic``, ``getfield``, ``putfield``.
FIELD_OPCODES: frozenset[int] = frozenset((GETSTATIC, PUTSTATIC, GETFIELD, PUTFIELD))
#: ``ldc``, ``ldc_w``, ``ldc2_w``.
LDC_OPCODES: frozenset[int] = frozenset((LDC, LDC_W, LDC2_W))

#: Instructions that may throw an exception, from JVMS 6.5 (their "Linking Exceptions" and
#: "Run-time Exceptions" paragraphs). A precise basic block ends after each of them.
#:
#: * array loads ``[ibfdlacs]aload``: NullPointerException, ArrayIndexOutOfBoundsException;
#: * array stores ``[ibfdlacs]astore``: the same, and ArrayStoreException for ``aastore``;
#: * ``arraylength``: NullPointerException;
#: * ``idiv``, ``irem``, ``ldiv``, ``lrem``: ArithmeticException (``fdiv``, ``frem``,
#:   ``ddiv``, ``drem`` never throw);
#: * ``getfield``, ``putfield``: field resolution errors, NullPointerException;
#: * ``getstatic``, ``putstatic``: resolution errors, class initialisation
#:   (ExceptionInInitializerError, NoClassDefFoundError, anything the initialiser throws);
#: * ``invokevirtual``, ``invokespecial``, ``invokestatic``, ``invokeinterface``,
#:   ``invokedynamic``: resolution errors, class initialisation, NullPointerException,
#:   AbstractMethodError, IncompatibleClassChangeError, UnsatisfiedLinkError,
#:   BootstrapMethodError, and whatever the callee throws;
#: * ``new``: resolution errors, InstantiationError, class initialisation;
#: * ``newarray``: NegativeArraySizeException; ``anewarray``, ``multianewarray``: resolution
#:   errors, NegativeArraySizeException;
#: * ``checkcast``: resolution errors, ClassCastException; ``instanceof``: resolution errors;
#: * ``monitorenter``: NullPointerException; ``monitorexit``: NullPointerException,
#:   IllegalMonitorStateException;
#: * ``athrow``: the thrown object, NullPointerException, IllegalMonitorStateException;
#: * ``ireturn`` ... ``return``: IllegalMonitorStateException (structured locking);
#: * ``breakpoint``, ``impdep1``, ``impdep2``: meaning unknown, assumed to throw.
#:
#: ``ldc``/``ldc_w``/``ldc2_w`` throw only for a Class, MethodType, MethodHandle or dynamic
#: constant (resolution, bootstrap errors), which depends on the constant: see
#: :data:`SAFE_LDC_TAGS` (and ``jprewrite.analysis.blocks.may_throw``). Never throwing by the
#: specification: constants, local loads and stores, ``iinc``, stack and arithmetic
#: instructions other than the four integer divisions, conversions, comparisons, branches,
#: switches, ``jsr``, ``ret``, ``nop``.
MAY_THROW_OPCODES: frozenset[int] = frozenset(
    [
        *range(IALOAD, SALOAD + 1),
        *range(IASTORE, SASTORE + 1),
        ARRAYLENGTH,
        IDIV,
        IREM,
        LDIV,
        LREM,
        *FIELD_OPCODES,
        *INVOKE_OPCODES,
        NEW,
        NEWARRAY,
        ANEWARRAY,
        MULTIANEWARRAY,
        CHECKCAST,
        INSTANCEOF,
        MONITORENTER,
        MONITOREXIT,
        ATHROW,
        *RETURN_OPCODES,
        BREAKPOINT,
        IMPDEP1,
        IMPDEP2,
    ]
)
#: Constant-pool tags whose ``ldc`` never throws (JVMS 5.4.3: nothing to resolve that can
#: fail; a String literal only allocates).
SAFE_LDC_TAGS: frozenset[int] = frozenset((_cp.INTEGER, _cp.FLOAT, _cp.LONG, _cp.DOUBLE, _cp.STRING))

#: Conditional branch -> the branch taken exactly when it is not (what the assembler jumps
#: over a ``goto_w`` with when a branch has to be widened).
INVERSE_BRANCHES: dict[int, int] = {
    IFEQ: IFNE,
    IFNE: IFEQ,
    IFLT: IFGE,
    IFGE: IFLT,
    IFGT: IFLE,
    IFLE: IFGT,
    IF_ICMPEQ: IF_ICMPNE,
    IF_ICMPNE: IF_ICMPEQ,
    IF_ICMPLT: IF_ICMPGE,
    IF_ICMPGE: IF_ICMPLT,
    IF_ICMPGT: IF_ICMPLE,
    IF_ICMPLE: IF_ICMPGT,
    IF_ACMPEQ: IF_ACMPNE,
    IF_ACMPNE: IF_ACMPEQ,
    IFNULL: IFNONNULL,
    IFNONNULL: IFNULL,
}

# ------------------------------------------------------------------ locals
#: The general (operand-carrying) loads ``iload`` ... ``aload``.
LOAD_OPCODES: frozenset[int] = frozenset(range(ILOAD, ALOAD + 1))
#: The general stores ``istore`` ... ``astore``.
STORE_OPCODES: frozenset[int] = frozenset(range(ISTORE, ASTORE + 1))
#: The instructions that name a local in their operand and that ``wide`` may widen, ``iinc``
#: aside: the general loads and stores, and ``ret``.
LOCAL_SLOT_OPCODES: frozenset[int] = LOAD_OPCODES | STORE_OPCODES | {RET}
#: Shortcut form (``iload_0`` ... ``astore_3``) -> (general opcode, slot).
SHORT_FORMS: dict[int, tuple[int, int]] = {
    first + 4 * kind + slot: (base + kind, slot)
    for base, first in ((ILOAD, ILOAD_0), (ISTORE, ISTORE_0))
    for kind in range(5)
    for slot in range(4)
}
#: General load/store -> its slot-0 shortcut (``aload`` -> ``aload_0``; add the slot, 0-3).
SHORT_FORM_BASE: dict[int, int] = {general: short for short, (general, slot) in SHORT_FORMS.items() if slot == 0}
#: Every store into a local, shortcut forms included (``iinc`` aside: it keeps the type).
ANY_STORE_OPCODES: frozenset[int] = STORE_OPCODES | frozenset(
    short for short, (general, _) in SHORT_FORMS.items() if general in STORE_OPCODES
)
#: Loads and stores of a long or double: they touch two local slots.
TWO_SLOT_LOCAL_OPCODES: frozenset[int] = frozenset((LLOAD, DLOAD, LSTORE, DSTORE))
#: General primitive load/store -> the verification type it moves (``aload``/``astore`` move
#: whatever reference the local or the stack holds, so they are not here).
LOCAL_TYPES: dict[int, VType] = {
    ILOAD: Integer,
    LLOAD: Long,
    FLOAD: Float,
    DLOAD: Double,
    ISTORE: Integer,
    LSTORE: Long,
    FSTORE: Float,
    DSTORE: Double,
}

# ---------------------------------------------------------- operand stack
#: One letter per value in :data:`SIGNATURES`: I, J, F, D the primitive (int covers boolean,
#: byte, char and short on the stack), A a reference, N null, R a return address (jsr),
#: T a value whose type the instruction's operand names (a field, a constant).
VALUE_TYPES: dict[str, VType] = {"I": Integer, "J": Long, "F": Float, "D": Double, "N": Null}


def _signatures() -> dict[int, tuple[str, str]]:
    sig: dict[int, tuple[str, str]] = {}

    def put(ops, pops: str, pushes: str) -> None:
        for o in ops:
            sig[o] = (pops, pushes)

    put([NOP, GOTO, GOTO_W, RETURN, IINC, RET], "", "")
    put([ACONST_NULL], "", "N")
    put([*range(ICONST_M1, ICONST_5 + 1), BIPUSH, SIPUSH], "", "I")
    put([LCONST_0, LCONST_1], "", "J")
    put([FCONST_0, FCONST_1, FCONST_2], "", "F")
    put([DCONST_0, DCONST_1], "", "D")
    put([LDC, LDC_W, LDC2_W], "", "T")
    for k, t in enumerate("IJFDA"):
        put([ILOAD + k, *range(ILOAD_0 + 4 * k, ILOAD_0 + 4 * k + 4)], "", t)
        put([ISTORE + k, *range(ISTORE_0 + 4 * k, ISTORE_0 + 4 * k + 4)], t, "")
        put([IRETURN + k], t, "")
    for k, t in enumerate("IJFDAIII"):  # i l f d a b c s
        put([IALOAD + k], "AI", t)
        put([IASTORE + k], "AI" + t, "")
    for k, t in enumerate("IJFD"):
        put([IADD + k, ISUB + k, IMUL + k, IDIV + k, IREM + k], t + t, t)
        put([INEG + k], t, t)
    for k, t in enumerate("IJ"):
        put([ISHL + k, ISHR + k, IUSHR + k], t + "I", t)
        put([IAND + k, IOR + k, IXOR + k], t + t, t)
    conversions = {
        I2L: ("I", "J"),
        I2F: ("I", "F"),
        I2D: ("I", "D"),
        L2I: ("J", "I"),
        L2F: ("J", "F"),
        L2D: ("J", "D"),
        F2I: ("F", "I"),
        F2L: ("F", "J"),
        F2D: ("F", "D"),
        D2I: ("D", "I"),
        D2L: ("D", "J"),
        D2F: ("D", "F"),
        I2B: ("I", "I"),
        I2C: ("I", "I"),
        I2S: ("I", "I"),
    }
    for o, (source, result) in conversions.items():
        put([o], source, result)
    put([LCMP], "JJ", "I")
    put([FCMPL, FCMPG], "FF", "I")
    put([DCMPL, DCMPG], "DD", "I")
    put(range(IFEQ, IFLE + 1), "I", "")
    put(range(IF_ICMPEQ, IF_ICMPLE + 1), "II", "")
    put([IF_ACMPEQ, IF_ACMPNE], "AA", "")
    put([IFNULL, IFNONNULL], "A", "")
    put([JSR, JSR_W], "", "R")
    put([TABLESWITCH, LOOKUPSWITCH], "I", "")
    put([GETSTATIC], "", "T")
    put([PUTSTATIC], "T", "")
    put([GETFIELD], "A", "T")
    put([PUTFIELD], "AT", "")
    put([NEW], "", "A")
    put([NEWARRAY, ANEWARRAY], "I", "A")
    put([ARRAYLENGTH], "A", "I")
    put([ATHROW, MONITORENTER, MONITOREXIT], "A", "")
    put([CHECKCAST], "A", "A")
    put([INSTANCEOF], "A", "I")
    return sig


#: opcode -> (values popped, values pushed), bottom of the stack first, one letter per value
#: (:data:`VALUE_TYPES`), JVMS 6.5's "Operand Stack" lines: ``iadd`` is ``("II", "I")``,
#: ``lshl`` ``("JI", "J")``, ``lastore`` ``("AIJ", "")``. Every opcode whose effect is a fixed
#: list of values is here; not: the invocations and ``multianewarray`` (the operand decides
#: how many), the ``pop``/``dup``/``swap`` family (they work on slots, whatever the types:
#: see :data:`DUP_FORMS`), ``wide``, ``breakpoint`` and ``impdep1/2``.
SIGNATURES: dict[int, tuple[str, str]] = _signatures()

#: ``dup`` family -> (slots copied from the top, slots they are copied below).
DUP_FORMS: dict[int, tuple[int, int]] = {
    DUP: (1, 0),
    DUP_X1: (1, 1),
    DUP_X2: (1, 2),
    DUP2: (2, 0),
    DUP2_X1: (2, 1),
    DUP2_X2: (2, 2),
}


def _stack_effects() -> tuple[tuple[int, int] | None, ...]:
    def slots(values: str) -> int:
        return sum(2 if v in "JD" else 1 for v in values)

    effects: list[tuple[int, int] | None] = [None] * 256
    for o, (pops, pushes) in SIGNATURES.items():
        if "T" not in pops and "T" not in pushes:
            effects[o] = (slots(pops), slots(pushes))
    for o, (copied, under) in DUP_FORMS.items():
        effects[o] = (copied + under, 2 * copied + under)
    effects[POP], effects[POP2], effects[SWAP] = (1, 0), (2, 0), (2, 2)
    return tuple(effects)


#: opcode -> (operand-stack slots popped, slots pushed) where that does not depend on the
#: operand (long and double take two slots), else None: ``ldc``, field access, invocations,
#: ``multianewarray``, ``wide`` and the unassigned opcodes.
STACK_EFFECTS: tuple[tuple[int, int] | None, ...] = _stack_effects()

#: ``newarray`` type code -> the array's descriptor.
NEWARRAY_DESCRIPTORS: dict[int, str] = {
    T_BOOLEAN: "[Z",
    T_CHAR: "[C",
    T_FLOAT: "[F",
    T_DOUBLE: "[D",
    T_BYTE: "[B",
    T_SHORT: "[S",
    T_INT: "[I",
    T_LONG: "[J",
}
#: Constant-pool tag -> what ``ldc`` of such a constant pushes (a dynamic constant pushes
#: the type of its descriptor, so it is not here).
LDC_TYPES: dict[int, VType] = {
    _cp.INTEGER: Integer,
    _cp.FLOAT: Float,
    _cp.LONG: Long,
    _cp.DOUBLE: Double,
    _cp.STRING: Object("java/lang/String"),
    _cp.CLASS: Object("java/lang/Class"),
    _cp.METHOD_TYPE: Object("java/lang/invoke/MethodType"),
    _cp.METHOD_HANDLE: Object("java/lang/invoke/MethodHandle"),
}
