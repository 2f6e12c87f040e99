"""pprof's ``perftools.profiles.Profile`` message, with the official ``protobuf`` package.

The message classes are built at import from a descriptor assembled here (message and
field names, numbers and types of pprof's ``profile.proto``, package
``perftools.profiles``), in a private descriptor pool: no generated ``_pb2`` module to keep
in step with the protobuf runtime, no ``protoc`` needed, and no clash with another copy of
the same messages registered by some other package in the default pool. Only the fields
jprewrite writes or a reader needs are declared; protobuf keeps unknown fields of files
written by other tools, so reading those back is unaffected.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..errors import JprewriteError

try:
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
except ImportError:  # pragma: no cover - depends on the installation
    raise JprewriteError("pprof export needs the 'protobuf' package (pip install protobuf)") from None

from .export import stacks
from .model import Profile, Tree
from .names import display_names

__all__ = ["message_classes", "profile_chunks", "PACKAGE"]

PACKAGE = "perftools.profiles"

_I64, _U64, _BOOL, _STR, _MSG = (
    descriptor_pb2.FieldDescriptorProto.TYPE_INT64,
    descriptor_pb2.FieldDescriptorProto.TYPE_UINT64,
    descriptor_pb2.FieldDescriptorProto.TYPE_BOOL,
    descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
    descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE,
)

# message -> (field, number, type, repeated?, message type)
_SCHEMA: dict[str, list[tuple]] = {
    "Profile": [
        ("sample_type", 1, _MSG, True, "ValueType"),
        ("sample", 2, _MSG, True, "Sample"),
        ("mapping", 3, _MSG, True, "Mapping"),
        ("location", 4, _MSG, True, "Location"),
        ("function", 5, _MSG, True, "Function"),
        ("string_table", 6, _STR, True, None),
        ("drop_frames", 7, _I64, False, None),
        ("keep_frames", 8, _I64, False, None),
        ("time_nanos", 9, _I64, False, None),
        ("duration_nanos", 10, _I64, False, None),
        ("period_type", 11, _MSG, False, "ValueType"),
        ("period", 12, _I64, False, None),
        ("comment", 13, _I64, True, None),
        ("default_sample_type", 14, _I64, False, None),
    ],
    "ValueType": [("type", 1, _I64, False, None), ("unit", 2, _I64, False, None)],
    "Sample": [("location_id", 1, _U64, True, None), ("value", 2, _I64, True, None), ("label", 3, _MSG, True, "Label")],
    "Label": [
        ("key", 1, _I64, False, None),
        ("str", 2, _I64, False, None),
        ("num", 3, _I64, False, None),
        ("num_unit", 4, _I64, False, None),
    ],
    "Mapping": [
        ("id", 1, _U64, False, None),
        ("memory_start", 2, _U64, False, None),
        ("memory_limit", 3, _U64, False, None),
        ("file_offset", 4, _U64, False, None),
        ("filename", 5, _I64, False, None),
        ("build_id", 6, _I64, False, None),
        ("has_functions", 7, _BOOL, False, None),
        ("has_filenames", 8, _BOOL, False, None),
        ("has_line_numbers", 9, _BOOL, False, None),
        ("has_inline_frames", 10, _BOOL, False, None),
    ],
    "Location": [
        ("id", 1, _U64, False, None),
        ("mapping_id", 2, _U64, False, None),
        ("address", 3, _U64, False, None),
        ("line", 4, _MSG, True, "Line"),
        ("is_folded", 5, _BOOL, False, None),
    ],
    "Line": [("function_id", 1, _U64, False, None), ("line", 2, _I64, False, None)],
    "Function": [
        ("id", 1, _U64, False, None),
        ("name", 2, _I64, False, None),
        ("system_name", 3, _I64, False, None),
        ("filename", 4, _I64, False, None),
        ("start_line", 5, _I64, False, None),
    ],
}


def _build() -> dict[str, type]:
    fdp = descriptor_pb2.FileDescriptorProto(name="jprewrite/pprof_profile.proto", package=PACKAGE, syntax="proto3")
    for msg, fields in _SCHEMA.items():
        m = fdp.message_type.add(name=msg)
        for name, number, ftype, repeated, type_name in fields:
            f = m.field.add(
                name=name,
                number=number,
                type=ftype,
                label=(
                    descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
                    if repeated
                    else descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL
                ),
            )
            if type_name:
                f.type_name = f".{PACKAGE}.{type_name}"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return {msg: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{PACKAGE}.{msg}")) for msg in _SCHEMA}


_CLASSES = _build()


def message_classes() -> dict[str, type]:
    """The message classes by name (``Profile``, ``Sample``, ``Location``...): to read pprof files back."""
    return dict(_CLASSES)


class _Strings:
    def __init__(self) -> None:
        self.table = [""]
        self.index = {"": 0}

    def __call__(self, s: str) -> int:
        i = self.index.get(s)
        if i is None:
            i = self.index[s] = len(self.table)
            self.table.append(s)
        return i


def profile_chunks(
    profile: Profile,
    trees: list[tuple[str, Tree]],
    *,
    default_metric: str,
    full_names: bool = False,
    comment: str = "",
    batch: int = 20_000,
) -> Iterator[bytes]:
    """The serialized ``Profile`` of ``trees`` in pieces whose concatenation is the whole message.

    One sample per context with a non-zero value, a ``thread`` label (the tree's title) when there
    is more than one tree. Protobuf merges concatenated messages of a type (repeated fields
    append), so the samples go out ``batch`` at a time, each batch a ``Profile`` with only
    samples, and the string table last, when every string is known: memory stays at one batch
    however many millions of contexts the profile has.
    """
    make = _CLASSES["Profile"]
    head = make()
    s = _Strings()
    metrics = [m for m in profile.metrics if any(m in t.values for _, t in trees)] or ["calls"]
    for m in metrics:
        head.sample_type.add(type=s(m), unit=s("count"))
    head.default_sample_type = s(default_metric if default_metric in metrics else metrics[0])
    names = display_names(profile.frames.names, full_names)
    for f, jvm in enumerate(profile.frames.names):
        cls = jvm[: jvm.find("(")].rpartition(".")[0] if "(" in jvm else ""
        head.function.add(id=f + 1, name=s(names[f]), system_name=s(jvm), filename=s(cls))
        head.location.add(id=f + 1).line.add(function_id=f + 1)
    if comment:
        head.comment.append(s(comment))
    yield head.SerializeToString()
    label_threads = len(trees) > 1
    thread_key = s("thread")
    for title, tree in trees:
        cols = [tree.value(m) for m in metrics]
        title_index = s(title)
        part = make()
        for i, path in stacks(tree):
            vals = [c[i] for c in cols]
            if not any(vals):
                continue
            sample = part.sample.add(location_id=[f + 1 for f in reversed(path)], value=vals)
            if label_threads:
                sample.label.add(key=thread_key, str=title_index)
            if len(part.sample) >= batch:
                yield part.SerializeToString()
                part = make()
        if len(part.sample):
            yield part.SerializeToString()
    tail = make()
    tail.string_table.extend(s.table)
    yield tail.SerializeToString()
