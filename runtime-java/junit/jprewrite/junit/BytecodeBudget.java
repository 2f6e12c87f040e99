package jprewrite.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The test method body may execute at most {@link #max} bytecodes (and, when given, make at most
 * {@link #maxAllocations} allocations). Counts are exact and the same on every machine, so the
 * budget never flakes; see {@code docs/budgets.md}.
 *
 * <p>On a test method, or on a class (every test method in it, unless the method has its own).
 * Only the test method's body is measured ({@code @BeforeEach} and {@code @AfterEach} are not),
 * in the thread that runs the test. The test needs jprewrite: the agent
 * ({@code -javaagent:$(jprewrite agent-path)}) or offline-rewritten classes.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@ExtendWith(BytecodeExtension.class)
public @interface BytecodeBudget {
    /** The most bytecodes the test body may execute (inclusive of everything it calls). */
    long max();

    /** The most allocations it may make (counted with the agent option {@code allocations=true}); -1: no limit. */
    long maxAllocations() default -1;
}
