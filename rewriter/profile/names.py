"""Frame names for people: ``Foo$Bar.g`` instead of ``com.acme.Foo$Bar.g(ILjava/lang/String;)V``.

A 30-deep context of full JVM names is 250 characters wide; what a reader needs is the
class's simple name and the method. Arguments are added only where the profile has
overloads (two frames that would otherwise read the same: ``Foo.g(int)``, ``Foo.g(String)``),
and the package only where two classes share a simple name.
"""

from __future__ import annotations

__all__ = ["split_method", "short_names", "short_descriptor", "display_names"]

_PRIMITIVES = {
    "B": "byte",
    "C": "char",
    "D": "double",
    "F": "float",
    "I": "int",
    "J": "long",
    "S": "short",
    "Z": "boolean",
    "V": "void",
}


def split_method(name: str) -> tuple[str, str, str]:
    """``pkg.Cls.m(I)V`` -> ``("pkg.Cls", "m", "(I)V")``; names without a descriptor keep ``""``."""
    paren = name.find("(")
    head, desc = (name, "") if paren < 0 else (name[:paren], name[paren:])
    dot = head.rfind(".")
    if dot < 0:
        return "", head, desc
    return head[:dot], head[dot + 1 :], desc


def short_descriptor(desc: str) -> str:
    """The parameter list of a JVM descriptor in Java's words: ``(I[Ljava/lang/String;)V`` -> ``(int, String[])``."""
    if not desc.startswith("("):
        return desc
    out, i, end = [], 1, desc.find(")")
    if end < 0:
        return desc
    while i < end:
        dims = 0
        while desc[i] == "[":
            dims += 1
            i += 1
        if desc[i] == "L":
            semi = desc.find(";", i)
            if semi < 0:
                return desc
            t = desc[i + 1 : semi].rsplit("/", 1)[-1]
            i = semi + 1
        else:
            t = _PRIMITIVES.get(desc[i], desc[i])
            i += 1
        out.append(t + "[]" * dims)
    return "(" + ", ".join(out) + ")"


def _simple_class(cls: str) -> str:
    return cls.rsplit(".", 1)[-1]


def short_names(names: list[str]) -> list[str]:
    """Short, still unambiguous display names for ``names`` (one per entry, same order)."""
    parts = [split_method(n) for n in names]
    # which simple class names stand for more than one class: those keep their package
    classes_of: dict[str, set[str]] = {}
    for cls, _, _ in parts:
        classes_of.setdefault(_simple_class(cls), set()).add(cls)
    heads = []
    for cls, method, _ in parts:
        if not cls:
            heads.append(method)
            continue
        simple = _simple_class(cls)
        heads.append(f"{cls if len(classes_of[simple]) > 1 else simple}.{method}")
    # which heads stand for more than one descriptor (overloads): those get their parameters
    descs_of: dict[str, set[str]] = {}
    for head, (_, _, desc) in zip(heads, parts):
        descs_of.setdefault(head, set()).add(desc)
    out = []
    for head, (_, _, desc) in zip(heads, parts):
        out.append(head + short_descriptor(desc) if len(descs_of[head]) > 1 and desc else head)
    # overloads that differ only in the return type (bridge methods) get it too
    seen: dict[str, int] = {}
    for name in out:
        seen[name] = seen.get(name, 0) + 1
    for i, (name, (_, _, desc)) in enumerate(zip(out, parts)):
        if seen[name] > 1 and ")" in desc:
            out[i] = f"{name}{_return_type(desc)}"
    return out


def _return_type(desc: str) -> str:
    ret = desc[desc.index(")") + 1 :]
    return ":" + short_descriptor(f"({ret})")[1:-1] if ret else ""


def display_names(names: list[str], full: bool = False) -> list[str]:
    """The names a tool shows: the JVM names with ``full``, else :func:`short_names`."""
    return list(names) if full else short_names(names)
