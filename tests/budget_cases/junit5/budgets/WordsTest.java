package budgets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import jprewrite.junit.BytecodeBaseline;
import jprewrite.junit.BytecodeBudget;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Budgets and a baseline; {@code overBudget} fails on purpose (tests/test_junit_budgets.py asserts its message). */
@BytecodeBudget(max = 1_000_000)
class WordsTest {
    private int warm;

    /** Expensive set-up that must not count: the extension measures the test method body only. */
    @BeforeEach
    void setUp() {
        warm = Words.fib(20);
    }

    @Test
    @BytecodeBudget(max = 400)
    void sortsSmallArrays() {
        assertArrayEquals(new int[] {1, 2, 3, 4, 5}, Words.sorted(new int[] {5, 3, 1, 4, 2}));
    }

    @Test
    @BytecodeBaseline
    void dropsVowels() {
        assertEquals("hll wrld", Words.consonants("Hello World"));
    }

    @Test
    void classBudgetApplies() {
        assertEquals(6765, warm);
        assertEquals(55, Words.fib(10));
    }

    @ParameterizedTest
    @ValueSource(ints = {5, 10})
    @BytecodeBaseline
    void fibonacci(int n) {
        Words.fib(n);
    }

    @Test
    @BytecodeBudget(max = 100)
    void overBudget() {
        Words.fib(12);
    }
}
