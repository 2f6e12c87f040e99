"""The runtime API table (``jprewrite.instrument.runtime_api``) against the compiled runtime and the contract doc.

Rewritten code calls the Java runtime only through :data:`RUNTIME_API`; a member renamed or
retyped on one side would otherwise show up only as ``NoSuchMethodError`` in some program.
The compiled classes are read with our own class-file reader (the same bytes the rewritten
jars carry), and ``docs/runtime-contract.md`` must carry the table the code prints.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jprewrite.classfile.model import ACC_PUBLIC, ACC_STATIC, read_class
from jprewrite.instrument import RUNTIME_API, contract_table
from jprewrite.rewrite.runtime_build import runtime_classes

DOC = Path(__file__).resolve().parent.parent / "docs" / "runtime-contract.md"


@pytest.fixture(scope="module")
def runtime() -> dict:
    return {
        name.removesuffix(".class"): read_class(data)
        for name, data in runtime_classes().items()
        if name.endswith(".class")
    }


@pytest.mark.parametrize("member", RUNTIME_API, ids=lambda m: f"{m.owner.rsplit('/', 1)[1]}.{m.name}")
def test_member_exists_with_its_descriptor(runtime, member) -> None:
    cf = runtime.get(member.owner)
    assert cf is not None, f"the runtime has no class {member.owner}"
    members = cf.fields if member.field else cf.methods
    found = [m for m in members if m.name == member.name]
    assert found, f"{member.owner} has no {'field' if member.field else 'method'} {member.name}"
    descriptors = [m.descriptor for m in found]
    assert member.descriptor in descriptors, (
        f"{member.owner}.{member.name}: runtime has {descriptors}, the table says {member.descriptor}"
    )
    m = next(m for m in found if m.descriptor == member.descriptor)
    assert bool(m.access & ACC_STATIC) == member.static, f"{member.owner}.{member.name}: static differs"
    assert m.access & ACC_PUBLIC, f"{member.owner}.{member.name} must be public (called from every package)"


def test_contract_doc_carries_the_table() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert contract_table() in text, (
        "docs/runtime-contract.md's table of entry points differs from "
        "jprewrite.instrument.contract_table(); paste its output into the doc"
    )


def test_every_runtime_member_the_rewriter_names_is_in_the_table() -> None:
    """No builder spells a runtime member of its own: every reference to the runtime package in the
    instrument layer's source goes through the table (the names in support.py are types)."""
    src = Path(__file__).resolve().parent.parent / "rewriter" / "instrument"
    offenders = []
    for path in sorted(src.glob("*.py")):
        if path.name in ("runtime_api.py", "support.py"):
            continue
        text = path.read_text(encoding="utf-8")
        for word in (
            "add_methodref(NODE",
            "add_methodref(ROOT",
            "add_fieldref(NODE",
            "add_fieldref(ROOT",
            "add_methodref(MID,",
            '"jprewrite/runtime/',
        ):
            if word in text:
                offenders.append(f"{path.name}: {word}")
    assert not offenders, offenders


@pytest.mark.parametrize("node", [0, 3, 4, 255, 256])
def test_counter_update_is_what_the_assembler_makes_of_its_instructions(runtime, node) -> None:
    """``add_to_counter`` writes its fragment as bytes: those of the six instructions it stands
    for, with their peak depth and the locals they reach."""
    from jprewrite.classfile import opcodes as op
    from jprewrite.classfile.instructions import Instruction
    from jprewrite.editor import encode_straight
    from jprewrite.instrument.method_ids import MidTable
    from jprewrite.instrument.runtime_api import NODE_BYTECODES, RuntimeCalls

    cf = runtime["jprewrite/runtime/Node"]
    pool = cf.pool
    rt = RuntimeCalls(pool, MidTable(cf, pool))
    ref = rt.field_ref(NODE_BYTECODES)
    for amount in (1, 7, 70000):
        (fragment,) = rt.add_to_counter(node, ref, amount)
        items = [
            Instruction(-1, op.ALOAD, node),
            Instruction(-1, op.DUP),
            Instruction(-1, op.GETFIELD, ref),
            Instruction(-1, op.LDC2_W, pool.add_long(amount)),
            Instruction(-1, op.LADD),
            Instruction(-1, op.PUTFIELD, ref),
        ]
        code, depth, peak, max_locals = encode_straight(items, pool)
        assert (fragment.code, fragment.peak, fragment.max_locals, depth) == (code, peak, max_locals, 0)


def test_node_enter_is_too_long_for_c2_to_inline(runtime) -> None:
    """``Node.enter`` (what every ESI twin calls) keeps its slow path in its own body, so that its
    bytecode is longer than C2's ``FreqInlineSize`` (read from the JVM the tests run): C2 then never
    inlines it into a twin, whose compiled frame stays small. Inlined, the slow path's live values
    made a recursive twin's frame about four times larger (a warm recursion reached 9,800 levels
    against 39,300)."""
    import re
    import subprocess

    from support.jdk import tool

    flags = subprocess.run([tool("java"), "-XX:+PrintFlagsFinal", "-version"], capture_output=True, text=True)
    found = re.search(r"\bFreqInlineSize\s*=\s*(\d+)", flags.stdout)
    assert found, "the JVM printed no FreqInlineSize"
    node = runtime["jprewrite/runtime/Node"]
    enter = next(m for m in node.methods if m.name == "enter" and m.descriptor.endswith("Ljprewrite/runtime/Node;"))
    code = enter.code()
    assert code is not None
    assert len(code.code) > int(found.group(1)), (len(code.code), found.group(1))
