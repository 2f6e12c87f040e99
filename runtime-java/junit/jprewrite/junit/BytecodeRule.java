package jprewrite.junit;

import java.lang.reflect.Method;

import jprewrite.runtime.Measurement;
import org.junit.rules.TestRule;
import org.junit.runner.Description;
import org.junit.runners.model.Statement;

/**
 * {@link BytecodeBudget} and {@link BytecodeBaseline} for JUnit 4:
 * {@code @Rule public BytecodeRule bytecodes = new BytecodeRule();}. A rule wraps
 * {@code @Before}/{@code @After} too, so the rule keeps only the test method's own subtree of the
 * measurement (when the test class is instrumented, as it is by default).
 */
public final class BytecodeRule implements TestRule {
    @Override
    public Statement apply(final Statement base, final Description description) {
        final Class<?> testClass = description.getTestClass();
        final Method method = testMethod(testClass, description.getMethodName());
        if (testClass == null || method == null) {
            return base;
        }
        final BytecodeBudget budget = BytecodeExtension.find(method, testClass, BytecodeBudget.class);
        final BytecodeBaseline baseline = BytecodeExtension.find(method, testClass, BytecodeBaseline.class);
        if (budget == null && baseline == null) {
            return base;
        }
        return new Statement() {
            @Override
            public void evaluate() throws Throwable {
                Measurement m = Checks.measure(new Checks.Body() {
                    @Override
                    public void run() throws Throwable {
                        base.evaluate();
                    }
                });
                Measurement body = Checks.testBody(m, method);
                String key = description.getMethodName().replaceAll("[^A-Za-z0-9_$.\\[\\]-]", "_");
                Checks.verify(body, Contexts.display(Checks.methodString(method)), budget, baseline,
                        baseline == null ? null : Checks.baselineFile(baseline, testClass, key));
            }
        };
    }

    /** The public no-argument method a JUnit 4 description names ({@code name[3]} for parameterized runs). */
    private static Method testMethod(Class<?> c, String name) {
        if (c == null || name == null) {
            return null;
        }
        int bracket = name.indexOf('[');
        String plain = bracket > 0 ? name.substring(0, bracket) : name;
        try {
            return c.getMethod(plain);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }
}
