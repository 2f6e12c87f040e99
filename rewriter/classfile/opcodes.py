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

from typing import Final

from . import constants as _cp
from .frames import Double, Float, Integer, Long, Null, Object, VType

# ----------------------------------------------------------------- opcodes
NOP: Final = 0
ACONST_NULL: Final = 1
ICONST_M1: Final = 2
ICONST_0: Final = 3
ICONST_1: Final = 4
ICONST_2: Final = 5
ICONST_3: Final = 6
ICONST_4: Final = 7
ICONST_5: Final = 8
LCONST_0: Final = 9
LCONST_1: Final = 10
FCONST_0: Final = 11
FCONST_1: Final = 12
FCONST_2: Final = 13
DCONST_0: Final = 14
DCONST_1: Final = 15
BIPUSH: Final = 16
SIPUSH: Final = 17
LDC: Final = 18
LDC_W: Final = 19
LDC2_W: Final = 20
ILOAD: Final = 21
LLOAD: Final = 22
FLOAD: Final = 23
DLOAD: Final = 24
ALOAD: Final = 25
ILOAD_0: Final = 26
ILOAD_1: Final = 27
ILOAD_2: Final = 28
ILOAD_3: Final = 29
LLOAD_0: Final = 30
LLOAD_1: Final = 31
LLOAD_2: Final = 32
LLOAD_3: Final = 33
FLOAD_0: Final = 34
FLOAD_1: Final = 35
FLOAD_2: Final = 36
FLOAD_3: Final = 37
DLOAD_0: Final = 38
DLOAD_1: Final = 39
DLOAD_2: Final = 40
DLOAD_3: Final = 41
ALOAD_0: Final = 42
ALOAD_1: Final = 43
ALOAD_2: Final = 44
ALOAD_3: Final = 45
IALOAD: Final = 46
LALOAD: Final = 47
FALOAD: Final = 48
DALOAD: Final = 49
AALOAD: Final = 50
BALOAD: Final = 51
CALOAD: Final = 52
SALOAD: Final = 53
ISTORE: Final = 54
LSTORE: Final = 55
FSTORE: Final = 56
DSTORE: Final = 57
ASTORE: Final = 58
ISTORE_0: Final = 59
ISTORE_1: Final = 60
ISTORE_2: Final = 61
ISTORE_3: Final = 62
LSTORE_0: Final = 63
LSTORE_1: Final = 64
LSTORE_2: Final = 65
LSTORE_3: Final = 66
FSTORE_0: Final = 67
FSTORE_1: Final = 68
FSTORE_2: Final = 69
FSTORE_3: Final = 70
DSTORE_0: Final = 71
DSTORE_1: Final = 72
DSTORE_2: Final = 73
DSTORE_3: Final = 74
ASTORE_0: Final = 75
ASTORE_1: Final = 76
ASTORE_2: Final = 77
ASTORE_3: Final = 78
IASTORE: Final = 79
LASTORE: Final = 80
FASTORE: Final = 81
DASTORE: Final = 82
AASTORE: Final = 83
BASTORE: Final = 84
CASTORE: Final = 85
SASTORE: Final = 86
POP: Final = 87
POP2: Final = 88
DUP: Final = 89
DUP_X1: Final = 90
DUP_X2: Final = 91
DUP2: Final = 92
DUP2_X1: Final = 93
DUP2_X2: Final = 94
SWAP: Final = 95
IADD: Final = 96
LADD: Final = 97
FADD: Final = 98
DADD: Final = 99
ISUB: Final = 100
LSUB: Final = 101
FSUB: Final = 102
DSUB: Final = 103
IMUL: Final = 104
LMUL: Final = 105
FMUL: Final = 106
DMUL: Final = 107
IDIV: Final = 108
LDIV: Final = 109
FDIV: Final = 110
DDIV: Final = 111
IREM: Final = 112
LREM: Final = 113
FREM: Final = 114
DREM: Final = 115
INEG: Final = 116
LNEG: Final = 117
FNEG: Final = 118
DNEG: Final = 119
ISHL: Final = 120
LSHL: Final = 121
ISHR: Final = 122
LSHR: Final = 123
IUSHR: Final = 124
LUSHR: Final = 125
IAND: Final = 126
LAND: Final = 127
IOR: Final = 128
LOR: Final = 129
IXOR: Final = 130
LXOR: Final = 131
IINC: Final = 132
I2L: Final = 133
I2F: Final = 134
I2D: Final = 135
L2I: Final = 136
L2F: Final = 137
L2D: Final = 138
F2I: Final = 139
F2L: Final = 140
F2D: Final = 141
D2I: Final = 142
D2L: Final = 143
D2F: Final = 144
I2B: Final = 145
I2C: Final = 146
I2S: Final = 147
LCMP: Final = 148
FCMPL: Final = 149
FCMPG: Final = 150
DCMPL: Final = 151
DCMPG: Final = 152
IFEQ: Final = 153
IFNE: Final = 154
IFLT: Final = 155
IFGE: Final = 156
IFGT: Final = 157
IFLE: Final = 158
IF_ICMPEQ: Final = 159
IF_ICMPNE: Final = 160
IF_ICMPLT: Final = 161
IF_ICMPGE: Final = 162
IF_ICMPGT: Final = 163
IF_ICMPLE: Final = 164
IF_ACMPEQ: Final = 165
IF_ACMPNE: Final = 166
GOTO: Final = 167
JSR: Final = 168
RET: Final = 169
TABLESWITCH: Final = 170
LOOKUPSWITCH: Final = 171
IRETURN: Final = 172
LRETURN: Final = 173
FRETURN: Final = 174
DRETURN: Final = 175
ARETURN: Final = 176
RETURN: Final = 177
GETSTATIC: Final = 178
PUTSTATIC: Final = 179
GETFIELD: Final = 180
PUTFIELD: Final = 181
INVOKEVIRTUAL: Final = 182
INVOKESPECIAL: Final = 183
INVOKESTATIC: Final = 184
INVOKEINTERFACE: Final = 185
INVOKEDYNAMIC: Final = 186
NEW: Final = 187
NEWARRAY: Final = 188
ANEWARRAY: Final = 189
ARRAYLENGTH: Final = 190
ATHROW: Final = 191
CHECKCAST: Final = 192
INSTANCEOF: Final = 193
MONITORENTER: Final = 194
MONITOREXIT: Final = 195
WIDE: Final = 196
MULTIANEWARRAY: Final = 197
IFNULL: Final = 198
IFNONNULL: Final = 199
GOTO_W: Final = 200
JSR_W: Final = 201
BREAKPOINT: Final = 202
IMPDEP1: Final = 254
IMPDEP2: Final = 255

# ------------------------------------------------------------ operand formats
# The shape of the bytes after the opcode. ``wide`` changes the shape of the
# FMT_LOCAL and FMT_IINC opcodes only (see WIDENABLE).
FMT_INVALID: Final = 0  #: not an assigned opcode
FMT_NONE: Final = 1  #: no operands
FMT_LOCAL: Final = 2  #: u1 local-variable index (u2 under wide); also ``ret``
FMT_IINC: Final = 3  #: u1 local index, s1 increment (u2, s2 under wide)
FMT_BYTE: Final = 4  #: bipush: s1 immediate
FMT_SHORT: Final = 5  #: sipush: s2 immediate
FMT_CP1: Final = 6  #: ldc: u1 constant-pool index
FMT_CP2: Final = 7  #: u2 constant-pool index (ldc_w, field/method refs, new, ...)
FMT_NEWARRAY: Final = 8  #: newarray: u1 array type code (T_BOOLEAN=4 ... T_LONG=11)
FMT_BRANCH: Final = 9  #: s2 branch offset (if*, goto, jsr)
FMT_BRANCH_W: Final = 10  #: s4 branch offset (goto_w, jsr_w)
FMT_TABLESWITCH: Final = 11  #: padding, default, low, high, offsets
FMT_LOOKUPSWITCH: Final = 12  #: padding, default, npairs, (key, offset) pairs
FMT_INVOKEINTERFACE: Final = 13  #: u2 cp index, u1 count, u1 zero
FMT_INVOKEDYNAMIC: Final = 14  #: u2 cp index, u2 zero
FMT_MULTIANEWARRAY: Final = 15  #: u2 cp index, u1 dimensions
FMT_WIDE: Final = 16  #: the wide prefix itself

FORMAT_NAMES: Final[tuple[str, ...]] = (
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


_TABLES = _build_tables()
#: Mnemonic of each opcode byte (``None`` if unassigned).
OPCODE_NAMES: Final[tuple[str | None, ...]] = _TABLES[0]
#: Operand format (FMT_*) of each opcode byte.
FORMATS: Final[tuple[int, ...]] = _TABLES[1]

#: Mnemonic -> opcode byte.
OPCODES_BY_NAME: Final[dict[str, int]] = {n: op for op, n in enumerate(OPCODE_NAMES) if n is not None}

#: Length in bytes (opcode included) of each fixed-size, non-wide instruction;
#: 0 for switches, ``wide`` and unassigned opcodes, whose length depends on context.
LENGTHS: Final[tuple[int, ...]] = tuple(
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
WIDENABLE: Final[frozenset[int]] = frozenset(op for op in range(256) if FORMATS[op] in (FMT_LOCAL, FMT_IINC))


# newarray type codes (JVMS Table 6.5.newarray-A)
T_BOOLEAN: Final = 4
T_CHAR: Final = 5
T_FLOAT: Final = 6
T_DOUBLE: Final = 7
T_BYTE: Final = 8
T_SHORT: Final = 9
T_INT: Final = 10
T_LONG: Final = 11
#: newarray type code -> Java type name, as javap prints it.
NEWARRAY_TYPE_NAMES: Final[dict[int, str]] = {
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
GOTO_OPCODES: Final[frozenset[int]] = frozenset((GOTO, GOTO_W))
#: ``jsr`` and ``jsr_w``: calls of a JVM subroutine (class files before version 50).
JSR_OPCODES: Final[frozenset[int]] = frozenset((JSR, JSR_W))
#: ``jsr``, ``jsr_w`` and ``ret``: a return address cannot be written in a frame.
SUBROUTINE_OPCODES: Final[frozenset[int]] = JSR_OPCODES | {RET}
#: The two-way branches ``if*`` (a taken edge and a fall-through).
CONDITIONAL_BRANCH_OPCODES: Final[frozenset[int]] = frozenset((*range(IFEQ, IF_ACMPNE + 1), IFNULL, IFNONNULL))
#: Opcodes whose operand is a branch target (2- or 4-byte offset), jsr included.
BRANCH_OPCODES: Final[frozenset[int]] = frozenset(op for op in range(256) if FORMATS[op] in (FMT_BRANCH, FMT_BRANCH_W))
SWITCH_OPCODES: Final[frozenset[int]] = frozenset((TABLESWITCH, LOOKUPSWITCH))
#: Instructions whose operands name code positions: branches, jsr and switches.
JUMP_OPCODES: Final[frozenset[int]] = BRANCH_OPCODES | SWITCH_OPCODES
#: ``ireturn`` ... ``return``.
RETURN_OPCODES: Final[frozenset[int]] = frozenset(range(IRETURN, RETURN + 1))
#: Instructions after which control never falls through to the next one ("ends the flow"):
#: goto, switches, returns, athrow, ret. (``jsr`` does come back, after ``ret``.)
UNCONDITIONAL_OPCODES: Final[frozenset[int]] = GOTO_OPCODES | SWITCH_OPCODES | RETURN_OPCODES | {ATHROW, RET}
#: Instructions that may transfer control elsewhere than to the next instruction: every
#: branch (jsr included), switch, return, athrow and ret. They end a basic block.
CONTROL_OPCODES: Final[frozenset[int]] = BRANCH_OPCODES | SWITCH_OPCODES | RETURN_OPCODES | {ATHROW, RET}
#: The method invocations, ``invokedynamic`` included (its call site invokes a method).
INVOKE_OPCODES: Final[frozenset[int]] = frozenset(
    (INVOKEVIRTUAL, INVOKESPECIAL, INVOKESTATIC, INVOKEINTERFACE, INVOKEDYNAMIC)
)
#: Field access: ``getstatic``, ``putstatic``, ``getfield``, ``putfield``.
FIELD_OPCODES: Final[frozenset[int]] = frozenset((GETSTATIC, PUTSTATIC, GETFIELD, PUTFIELD))
#: ``ldc``, ``ldc_w``, ``ldc2_w``.
LDC_OPCODES: Final[frozenset[int]] = frozenset((LDC, LDC_W, LDC2_W))

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
MAY_THROW_OPCODES: Final[frozenset[int]] = frozenset(
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
SAFE_LDC_TAGS: Final[frozenset[int]] = frozenset((_cp.INTEGER, _cp.FLOAT, _cp.LONG, _cp.DOUBLE, _cp.STRING))

#: Conditional branch -> the branch taken exactly when it is not (what the assembler jumps
#: over a ``goto_w`` with when a branch has to be widened).
INVERSE_BRANCHES: Final[dict[int, int]] = {
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
LOAD_OPCODES: Final[frozenset[int]] = frozenset(range(ILOAD, ALOAD + 1))
#: The general stores ``istore`` ... ``astore``.
STORE_OPCODES: Final[frozenset[int]] = frozenset(range(ISTORE, ASTORE + 1))
#: The instructions that name a local in their operand and that ``wide`` may widen, ``iinc``
#: aside: the general loads and stores, and ``ret``.
LOCAL_SLOT_OPCODES: Final[frozenset[int]] = LOAD_OPCODES | STORE_OPCODES | {RET}
#: Shortcut form (``iload_0`` ... ``astore_3``) -> (general opcode, slot).
SHORT_FORMS: Final[dict[int, tuple[int, int]]] = {
    first + 4 * kind + slot: (base + kind, slot)
    for base, first in ((ILOAD, ILOAD_0), (ISTORE, ISTORE_0))
    for kind in range(5)
    for slot in range(4)
}
#: General load/store -> its slot-0 shortcut (``aload`` -> ``aload_0``; add the slot, 0-3).
SHORT_FORM_BASE: Final[dict[int, int]] = {general: short for short, (general, slot) in SHORT_FORMS.items() if slot == 0}
#: Every store into a local, shortcut forms included (``iinc`` aside: it keeps the type).
ANY_STORE_OPCODES: Final[frozenset[int]] = STORE_OPCODES | frozenset(
    short for short, (general, _) in SHORT_FORMS.items() if general in STORE_OPCODES
)
#: Loads and stores of a long or double: they touch two local slots.
TWO_SLOT_LOCAL_OPCODES: Final[frozenset[int]] = frozenset((LLOAD, DLOAD, LSTORE, DSTORE))
#: General primitive load/store -> the verification type it moves (``aload``/``astore`` move
#: whatever reference the local or the stack holds, so they are not here).
LOCAL_TYPES: Final[dict[int, VType]] = {
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
VALUE_TYPES: Final[dict[str, VType]] = {"I": Integer, "J": Long, "F": Float, "D": Double, "N": Null}


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
SIGNATURES: Final[dict[int, tuple[str, str]]] = _signatures()

#: ``dup`` family -> (slots copied from the top, slots they are copied below).
DUP_FORMS: Final[dict[int, tuple[int, int]]] = {
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
STACK_EFFECTS: Final[tuple[tuple[int, int] | None, ...]] = _stack_effects()

#: ``newarray`` type code -> the array's descriptor.
NEWARRAY_DESCRIPTORS: Final[dict[int, str]] = {
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
LDC_TYPES: Final[dict[int, VType]] = {
    _cp.INTEGER: Integer,
    _cp.FLOAT: Float,
    _cp.LONG: Long,
    _cp.DOUBLE: Double,
    _cp.STRING: Object("java/lang/String"),
    _cp.CLASS: Object("java/lang/Class"),
    _cp.METHOD_TYPE: Object("java/lang/invoke/MethodType"),
    _cp.METHOD_HANDLE: Object("java/lang/invoke/MethodHandle"),
}
