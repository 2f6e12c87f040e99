package budgets;

import static org.junit.Assert.assertEquals;

import jprewrite.junit.BytecodeBudget;
import jprewrite.junit.BytecodeRule;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;

/** The JUnit 4 rule: {@code tooMuch} fails on purpose. */
public class WordsRuleTest {
    @Rule
    public BytecodeRule bytecodes = new BytecodeRule();

    private int warm;

    @Before
    public void setUp() {
        warm = Words.fib(20);
    }

    @Test
    @BytecodeBudget(max = 400)
    public void withinBudget() {
        assertEquals(5, Words.fib(5));
    }

    @Test
    @BytecodeBudget(max = 100)
    public void tooMuch() {
        Words.fib(12);
    }
}
