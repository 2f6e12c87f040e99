"""A class's constant pool with the find-or-add calls a rewriter repeats thousands of times memoised."""

from __future__ import annotations


class CachingPool:
    """The class's constant pool, with the find-or-add calls the rewriter repeats thousands of times memoised."""

    def __init__(self, pool) -> None:
        self._pool = pool
        self._memo: dict[tuple, int] = {}

    def __getattr__(self, name: str):
        return getattr(self._pool, name)

    def __getitem__(self, i: int):
        return self._pool[i]

    def _cached(self, key: tuple, make) -> int:
        i = self._memo.get(key)
        if i is None:
            i = self._memo[key] = make()
        return i

    def add_methodref(self, owner: str, name: str, descriptor: str, *, interface: bool = False) -> int:
        return self._cached(
            ("m", owner, name, descriptor, interface),
            lambda: self._pool.add_methodref(owner, name, descriptor, interface=interface),
        )

    def add_fieldref(self, owner: str, name: str, descriptor: str) -> int:
        return self._cached(("f", owner, name, descriptor), lambda: self._pool.add_fieldref(owner, name, descriptor))

    def add_string(self, text: str) -> int:
        return self._cached(("s", text), lambda: self._pool.add_string(text))

    def add_class(self, name: str) -> int:
        return self._cached(("c", name), lambda: self._pool.add_class(name))

    def add_long(self, value: int) -> int:
        return self._cached(("j", value), lambda: self._pool.add_long(value))

    def add_utf8(self, text: str) -> int:
        return self._cached(("u", text), lambda: self._pool.add_utf8(text))
