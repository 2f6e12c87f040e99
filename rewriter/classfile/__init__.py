"""The class-file layer: a lossless object model of JVM class files (JVMS chapter 4).

Reading is lazy and writing byte-identical for whatever was not changed. The main entry
points are re-exported here; the submodules are imported by name for the rest:
:mod:`.opcodes` (opcode numbers and every per-opcode fact), :mod:`.constants` (the constant
pool and its tags), :mod:`.attributes`, :mod:`.code` (Code and StackMapTable),
:mod:`.instructions`, :mod:`.frames` (verification types and frames), :mod:`.descriptors`,
:mod:`.mutf8`, and :mod:`.model` (also the access flags ``ACC_*``).
"""

from __future__ import annotations

from .attributes import Attribute, RawAttribute
from .code import CodeAttribute, CodeContext, ExceptionHandler, StackMapTable
from .constants import ConstantPool
from .descriptors import MethodDescriptor, parse_method_descriptor
from .frames import Frame, VType
from .instructions import Instruction, decode_instructions, encode_instructions
from .model import ClassCore, ClassFile, Field, Member, Method, read_class

__all__ = [
    "read_class",
    "ClassFile",
    "ClassCore",
    "Member",
    "Field",
    "Method",
    "ConstantPool",
    "Attribute",
    "RawAttribute",
    "CodeAttribute",
    "CodeContext",
    "ExceptionHandler",
    "StackMapTable",
    "Instruction",
    "decode_instructions",
    "encode_instructions",
    "Frame",
    "VType",
    "MethodDescriptor",
    "parse_method_descriptor",
]
