"""``jprewrite info``: what jprewrite reads in jars, directories and class files.

Per class: name, class-file version, access flags, superclass, counts of
fields/methods/attributes by name; per method: descriptor, flags and code size.
``--json`` gives the same as one JSON document for scripts.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from typing import Any

from ..classfile.model import (
    ACC_ABSTRACT,
    ACC_ANNOTATION,
    ACC_BRIDGE,
    ACC_ENUM,
    ACC_FINAL,
    ACC_INTERFACE,
    ACC_MODULE,
    ACC_NATIVE,
    ACC_PRIVATE,
    ACC_PROTECTED,
    ACC_PUBLIC,
    ACC_STATIC,
    ACC_SYNCHRONIZED,
    ACC_SYNTHETIC,
    ACC_VARARGS,
    ClassFile,
    read_class,
)
from ..errors import JprewriteError
from .inputs import open_inputs

_CLASS_FLAGS = [
    (ACC_PUBLIC, "public"),
    (ACC_FINAL, "final"),
    (ACC_INTERFACE, "interface"),
    (ACC_ABSTRACT, "abstract"),
    (ACC_SYNTHETIC, "synthetic"),
    (ACC_ANNOTATION, "annotation"),
    (ACC_ENUM, "enum"),
    (ACC_MODULE, "module"),
]
_METHOD_FLAGS = [
    (ACC_PUBLIC, "public"),
    (ACC_PRIVATE, "private"),
    (ACC_PROTECTED, "protected"),
    (ACC_STATIC, "static"),
    (ACC_FINAL, "final"),
    (ACC_SYNCHRONIZED, "synchronized"),
    (ACC_BRIDGE, "bridge"),
    (ACC_VARARGS, "varargs"),
    (ACC_NATIVE, "native"),
    (ACC_ABSTRACT, "abstract"),
    (ACC_SYNTHETIC, "synthetic"),
]


def java_release(major: int) -> str:
    """Java release that introduced a class-file major version (45 -> 1.1, 52 -> 8, 61 -> 17)."""
    if major <= 45:
        return "1.1"
    if major < 49:
        return f"1.{major - 44}"
    return str(major - 44)


def flags(access: int, table: list[tuple[int, str]]) -> list[str]:
    return [name for bit, name in table if access & bit]


def describe_class(cf: ClassFile) -> dict:
    pool = cf.pool
    attrs = Counter(pool.utf8(a.name_index) for a in cf.attributes)
    methods = []
    for m in cf.methods:
        code = m.code()
        m_attrs = Counter(pool.utf8(a.name_index) for a in m.attributes)
        entry = {
            "name": m.name,
            "descriptor": m.descriptor,
            "flags": flags(m.access, _METHOD_FLAGS),
            "code_size": len(code.code) if code is not None else None,
            "attributes": dict(m_attrs),
        }
        if code is not None:
            entry["max_stack"] = code.max_stack
            entry["max_locals"] = code.max_locals
            entry["handlers"] = len(code.handlers)
            entry["code_attributes"] = dict(Counter(pool.utf8(a.name_index) for a in code.attributes))
        methods.append(entry)
    return {
        "name": cf.name.replace("/", "."),
        "version": f"{cf.major}.{cf.minor}",
        "java": java_release(cf.major),
        "flags": flags(cf.access, _CLASS_FLAGS),
        "super": cf.super_name.replace("/", ".") if cf.super_name else None,
        "interfaces": [i.replace("/", ".") for i in cf.interfaces],
        "size": cf.size,
        "constants": len(pool) - 1,
        "fields": len(cf.fields),
        "methods": methods,
        "attributes": dict(attrs),
    }


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "info", help="list classes, versions, methods, code sizes and attributes", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("inputs", nargs="+", metavar="PATH", help="jar, zip, directory or .class file")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument("--methods", action="store_true", help="also list every method (text output)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    containers = open_inputs(args.inputs)
    report: list[dict[str, Any]] = []
    for c in containers:
        classes = []
        resources = 0
        for e in c.entries():
            if e.is_dir:
                continue
            if not e.is_class:
                resources += 1
                continue
            try:
                cf = read_class(e.read())
                classes.append(describe_class(cf) | ({"entry": e.name} if e.name else {}))
            except JprewriteError as err:
                err.located(path=c.path, entry=None if c.kind == "class" else e.name)
                raise
        report.append({"path": c.path, "kind": c.kind, "classes": classes, "resources": resources})
        c.close()
    if args.json:
        json.dump({"inputs": report}, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    for item in report:
        print(f"{item['path']}: {item['kind']}, {len(item['classes'])} classes, {item['resources']} other files")
        for cls in item["classes"]:
            code = sum(m["code_size"] or 0 for m in cls["methods"])
            attrs = ", ".join(f"{k}={v}" if v > 1 else k for k, v in sorted(cls["attributes"].items()))
            print(
                f"  {cls['name']}  {cls['version']} (Java {cls['java']})  "
                f"{' '.join(cls['flags']) or '-'}  fields={cls['fields']} "
                f"methods={len(cls['methods'])} code={code}B  [{attrs}]"
            )
            if args.methods:
                for m in cls["methods"]:
                    size = f"code={m['code_size']}B" if m["code_size"] is not None else "no code"
                    print(f"      {m['name']}{m['descriptor']}  {' '.join(m['flags']) or '-'}  {size}")
    return 0
