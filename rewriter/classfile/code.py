"""The Code attribute (JVMS 4.7.3) and its StackMapTable, at the concrete level.

Concrete means offsets and constant-pool indices, as in the file: this is what
``jprewrite check`` pushes through to prove the model is lossless. Editing with
labels is a layer above (the code editor) and builds on these objects.

Instructions and frames are decoded only when asked for; until then the code
bytes and the raw StackMapTable are written back as they were.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Final

from ..errors import ClassFormatError
from . import attributes as attrs
from .attributes import Attribute, Reader, encode_attribute_list, read_attribute_list
from .constants import ConstantPool

# Imported here, not inside the methods that use them: an import statement costs about
# a microsecond even when the module is loaded, and these run for every method.
from .frames import Frame, decode_stack_map_table, encode_stack_map_table, initial_locals
from .instructions import Instruction, decode_instructions, encode_instructions

_U2: Final = struct.Struct(">H")
_HANDLER: Final = struct.Struct(">HHHH")
_HHI: Final = struct.Struct(">HHI")  # max_stack, max_locals, code_length
_new = object.__new__
# True when this module runs compiled by mypyc (then its classes are native: ``object.__new__`` cannot
# make them, and calling the class is the fast way anyway)
_COMPILED: Final = __file__.endswith((".so", ".pyd"))


@dataclass(frozen=True, slots=True)
class CodeContext:
    """What decoding code-level attributes needs to know about the method around them."""

    class_name: str
    method_name: str
    descriptor: str
    is_static: bool
    code_length: int = -1

    # (written out, not generated: compiled by mypyc, a dataclass's generated __init__ runs interpreted)
    def __init__(
        self, class_name: str, method_name: str, descriptor: str, is_static: bool, code_length: int = -1
    ) -> None:
        object.__setattr__(self, "class_name", class_name)
        object.__setattr__(self, "method_name", method_name)
        object.__setattr__(self, "descriptor", descriptor)
        object.__setattr__(self, "is_static", is_static)
        object.__setattr__(self, "code_length", code_length)


# A frozen dataclass's __init__ stores each field through object.__setattr__, which
# looks the slot up again every time; two contexts are made per method, so the full
# decode builds them by calling the slots' own setters (the same stores, about twice
# as fast). The result is an ordinary CodeContext.
# (Compiled by mypyc, CodeContext is a native class: its constructor is a direct call, and the
# slot setters do not exist.)
_CC_SLOTS: Final = (
    ()
    if _COMPILED
    else tuple(
        vars(CodeContext)[f].__set__ for f in ("class_name", "method_name", "descriptor", "is_static", "code_length")
    )
)


def code_context(
    class_name: str, method_name: str, descriptor: str, is_static: bool, code_length: int = -1
) -> CodeContext:
    """``CodeContext(...)``, faster."""
    if _COMPILED:
        return CodeContext(class_name, method_name, descriptor, is_static, code_length)
    c = _new(CodeContext)
    set_class, set_method, set_descriptor, set_static, set_length = _CC_SLOTS
    set_class(c, class_name)
    set_method(c, method_name)
    set_descriptor(c, descriptor)
    set_static(c, is_static)
    set_length(c, code_length)
    return c


@dataclass(slots=True)
class ExceptionHandler:
    """One exception_table row; ``catch_type`` 0 means any (finally)."""

    start_pc: int
    end_pc: int
    handler_pc: int
    catch_type: int

    # (written out, not generated: compiled by mypyc, a dataclass's generated __init__ runs interpreted)
    def __init__(self, start_pc: int, end_pc: int, handler_pc: int, catch_type: int) -> None:
        self.start_pc = start_pc
        self.end_pc = end_pc
        self.handler_pc = handler_pc
        self.catch_type = catch_type


class CodeAttribute(Attribute):
    __slots__ = ("max_stack", "max_locals", "code", "handlers", "attributes", "_instructions", "context", "code_offset")
    name = "Code"

    def __init__(
        self,
        name_index: int,
        max_stack: int,
        max_locals: int,
        code: bytes,
        handlers: list[ExceptionHandler],
        attributes: list[Attribute],
        context: CodeContext | None = None,
        code_offset: int = -1,
    ) -> None:
        self.name_index = name_index
        self.max_stack = max_stack
        self.max_locals = max_locals
        self.code = code
        self.handlers = handlers
        self.attributes = attributes
        self.context = context
        self.code_offset = code_offset  # file offset of code[0], for error messages
        self._instructions: list[Instruction] | None = None

    @classmethod
    def decode(cls, name_index: int, r: Reader, pool: ConstantPool, ctx: object) -> CodeAttribute:
        if r.pos + 8 <= len(r.data):  # the usual case: one unpack for the fixed header
            max_stack, max_locals, length = _HHI.unpack_from(r.data, r.pos)
            r.pos += 8
        else:  # truncated: read field by field so that the error names the right offset
            max_stack, max_locals = r.u2(), r.u2()
            length = r.u4()
        if length == 0 or length > 65535:
            raise ClassFormatError(f"code_length {length} is not in 1..65535", offset=r.file_offset)
        code_offset = r.base + r.pos if r.base >= 0 else -1
        code = r.take(length)
        n = r.u2()
        handlers = []
        if n:
            r.need(8 * n)
            data = r.data
            for _ in range(n):
                start, end, handler, catch = _HANDLER.unpack_from(data, r.pos)
                if not (start < end <= length and handler < length):
                    raise ClassFormatError(
                        f"exception handler [{start}, {end}) -> {handler} lies outside the code (length {length})",
                        offset=r.file_offset,
                    )
                r.pos += 8
                handlers.append(ExceptionHandler(start, end, handler, catch))
        attributes, r.pos = read_attribute_list(r.data, r.pos, pool, base_offset=r.base)
        context = ctx if isinstance(ctx, CodeContext) else None
        if context is not None:
            context = CodeContext(
                context.class_name, context.method_name, context.descriptor, context.is_static, length
            )
        return cls(name_index, max_stack, max_locals, code, handlers, attributes, context, code_offset)

    @classmethod
    def decode_body(
        cls, name_index: int, data: bytes, offset: int, pool: ConstantPool, ctx: object
    ) -> CodeAttribute | None:
        """``decode`` for a well-formed body, without a Reader; None sends anything else there.

        One of these per method with code: reading the body in one straight pass
        (one unpack for the header, no per-field method calls) is worth the duplication.
        """
        n = len(data)
        if n < 8:
            return None
        max_stack, max_locals, length = _HHI.unpack_from(data, 0)
        end = 8 + length
        if not 0 < length <= 65535 or end + 2 > n:
            return None
        code = data[8:end]
        count = (data[end] << 8) | data[end + 1]
        pos = end + 2
        handlers = []
        if count:
            if pos + 8 * count > n:
                return None
            for start, stop, handler, catch in _HANDLER.iter_unpack(data[pos : pos + 8 * count]):
                if not (start < stop <= length and handler < length):
                    return None
                handlers.append(ExceptionHandler(start, stop, handler, catch))
            pos += 8 * count
        try:
            attributes, pos = read_attribute_list(data, pos, pool, base_offset=offset)
        except ClassFormatError:
            return None
        if pos != n:
            return None
        context = (
            code_context(ctx.class_name, ctx.method_name, ctx.descriptor, ctx.is_static, length)
            if isinstance(ctx, CodeContext)
            else None
        )
        code_offset = offset + 8 if offset >= 0 else -1
        if _COMPILED:
            return cls(name_index, max_stack, max_locals, code, handlers, attributes, context, code_offset)
        a = _new(cls)
        a.name_index = name_index
        a.max_stack = max_stack
        a.max_locals = max_locals
        a.code = code
        a.handlers = handlers
        a.attributes = attributes
        a.context = context
        a.code_offset = code_offset
        a._instructions = None
        return a

    # ------------------------------------------------------------ instructions
    def instructions(self) -> list:
        """The decoded instructions (decoded once, then kept; edits to the list are written)."""
        if self._instructions is None:
            try:
                self._instructions = decode_instructions(self.code)
            except ClassFormatError as e:
                if e.offset is not None and self.code_offset >= 0:
                    e.message = f"{e.message} (code offset {e.offset})"
                    e.offset = self.code_offset + e.offset
                raise
        return self._instructions

    def drop_instructions(self) -> None:
        """Forget the decoded instructions: the attribute writes its original code bytes again.

        Why: the disassembler hands the decoded instruction objects over to an editable
        body (many are taken over as they are); dropping them here means editing that body
        can never change this attribute.
        """
        self._instructions = None

    def code_bytes(self) -> bytes:
        """The code array: re-encoded from the instructions if they were decoded."""
        if self._instructions is not None:
            return encode_instructions(self._instructions)
        return self.code

    # -------------------------------------------------------------- attributes
    def attribute(self, name: str, pool: ConstantPool) -> Attribute | None:
        """The first nested attribute called ``name``, decoded (and kept decoded)."""
        for i, a in enumerate(self.attributes):
            if pool.utf8(a.name_index) == name:
                d = attrs.decode_attribute(a, pool, attrs.CODE, self.context)
                self.attributes[i] = d
                return d
        return None

    def decode_all(self, pool: ConstantPool) -> None:
        """Decode instructions and every nested attribute jprewrite knows (used by ``check``)."""
        self.instructions()
        attributes = self.attributes
        decode = attrs.decode_attribute
        for i, a in enumerate(attributes):
            attributes[i] = decode(a, pool, attrs.CODE, self.context)
        for a in attributes:  # (after all are decoded, so errors come in the order they did)
            if isinstance(a, StackMapTable):
                a.frames(pool)

    def encode_body(self, pool: ConstantPool) -> bytes:
        code = self.code_bytes()
        parts = [_HHI.pack(self.max_stack, self.max_locals, len(code)), code, _U2.pack(len(self.handlers))]
        for h in self.handlers:
            parts.append(_HANDLER.pack(h.start_pc, h.end_pc, h.handler_pc, h.catch_type))
        parts.append(encode_attribute_list(self.attributes, pool))
        return b"".join(parts)


class StackMapTable(Attribute):
    """The frames of a method (version >= 50), decoded to explicit frames on demand."""

    __slots__ = ("data", "context", "_frames", "offset")
    name = "StackMapTable"

    def __init__(self, name_index: int, data: bytes, context: CodeContext | None, offset: int = -1) -> None:
        self.name_index = name_index
        self.data = data
        self.context = context
        self.offset = offset
        self._frames: list[Frame] | None = None

    @classmethod
    def decode(cls, name_index: int, r: Reader, pool: ConstantPool, ctx: object) -> StackMapTable:
        data = r.take(len(r.data))
        return cls(name_index, data, ctx if isinstance(ctx, CodeContext) else None, r.base)

    @classmethod
    def decode_body(cls, name_index: int, data: bytes, offset: int, pool: ConstantPool, ctx: object) -> StackMapTable:
        return cls(name_index, data, ctx if isinstance(ctx, CodeContext) else None, offset)

    def frames(self, pool: ConstantPool) -> list:
        """Explicit frames (every local and stack entry spelled out)."""
        if self._frames is None:
            c = self.context
            if c is None:
                raise ClassFormatError("StackMapTable outside a method's Code attribute")
            initial = initial_locals(c.class_name, c.method_name, c.descriptor, c.is_static)
            try:
                self._frames = decode_stack_map_table(self.data, pool, initial, c.code_length)
            except ClassFormatError as e:
                if e.offset is not None and self.offset >= 0:
                    e.offset = self.offset + e.offset
                raise
        return self._frames

    def set_frames(self, frames: list) -> None:
        self._frames = frames

    @property
    def frames_if_decoded(self) -> list | None:
        """The frames when they are objects already (decoded, or set by the assembler), else None:
        lets a reader take what will be encoded without decoding bytes it can read itself."""
        return self._frames

    def encode_body(self, pool: ConstantPool) -> bytes:
        if self._frames is None:
            return self.data
        c = self.context
        # (a list: the encoder compares it with each frame's locals, which are lists)
        initial = (
            list(initial_locals(c.class_name, c.method_name, c.descriptor, c.is_static)) if c is not None else None
        )
        return encode_stack_map_table(self._frames, pool, initial)


attrs.register("Code", (attrs.METHOD,), CodeAttribute.decode)
attrs.register("StackMapTable", (attrs.CODE,), StackMapTable.decode)
