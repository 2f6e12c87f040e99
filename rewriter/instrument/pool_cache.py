"""The class's constant pool as the builders see it: the calls they repeat thousands of times, direct."""

from __future__ import annotations

from ..classfile.constants import ConstantPool


class CachingPool:
    """The class's constant pool, its find-or-add and name queries bound once.

    The pool memoises those calls itself (:class:`~jprewrite.classfile.constants.ConstantPool`);
    binding them here saves the builders an attribute lookup through ``__getattr__`` per call.
    """

    _DIRECT = (
        "utf8",
        "class_name",
        "member_ref",
        "name_and_type",
        "tag",
        "add_utf8",
        "add_class",
        "add_string",
        "add_name_and_type",
        "add_fieldref",
        "add_methodref",
        "add_integer",
        "add_long",
    )

    def __init__(self, pool: ConstantPool) -> None:
        self._pool = pool
        for name in self._DIRECT:
            setattr(self, name, getattr(pool, name))

    def __getattr__(self, name: str):
        return getattr(self._pool, name)

    def __getitem__(self, i: int):
        return self._pool[i]
