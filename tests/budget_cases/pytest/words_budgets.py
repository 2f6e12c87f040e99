"""Bytecode budgets and snapshots from pytest: tests/test_pytest_plugin.py copies this file into a
project of its own as ``test_words.py`` (not named ``test_*`` here, so the project's own test run
does not collect it), with the library of ../lib on the class path. ``test_over_budget`` fails on
purpose."""

import pytest


@pytest.fixture(scope="module")
def words(jprewrite_jvm):
    return jprewrite_jvm.jclass("budgets.Words")


def test_sorting_stays_cheap(bytecodes, words):
    result = bytecodes(lambda: list(words.sorted([5, 3, 1, 4, 2])), max=400)
    assert result.value == [1, 2, 3, 4, 5]
    assert 0 < result.bytecodes <= 400


def test_consonants_snapshot(bytecodes, words):
    result = bytecodes(lambda: str(words.consonants("Hello World")))
    assert result.value == "hll wrld"


@pytest.mark.bytecodes(tolerance=5)
def test_two_measurements(bytecodes, words):
    small = bytecodes(lambda: words.fib(5), name="fib5")
    large = bytecodes(lambda: words.fib(10), name="fib10")
    assert large.bytecodes > small.bytecodes


def test_over_budget(bytecodes, words):
    bytecodes(lambda: words.fib(12), max=100, snapshot=False)
