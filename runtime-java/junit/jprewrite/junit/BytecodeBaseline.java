package jprewrite.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Compare the calling context tree of the test method body with a stored baseline (a profile JSON
 * file): the test fails when its inclusive bytecodes (or allocations) grew by more than
 * {@link #tolerance} percent, naming the contexts that grew most.
 *
 * <p>The baseline is written when it is missing, and rewritten when the JVM runs with
 * {@code -Djprewrite.update=true}; commit it with the test. Its default place is
 * {@code src/test/resources/jprewrite-baselines/<test class>/<method>.json} relative to the
 * working directory (the module directory under Maven and Gradle); {@code -Djprewrite.baselines=DIR}
 * moves the directory, {@link #directory} and {@link #file} override both for one test.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@ExtendWith(BytecodeExtension.class)
public @interface BytecodeBaseline {
    /** Allowed growth of the totals, in percent of the baseline (0: none). */
    double tolerance() default 0;

    /** Directory of the baselines ("": {@code -Djprewrite.baselines}, else the default). */
    String directory() default "";

    /** The baseline file, relative to {@link #directory} ("": {@code <test class>/<method>.json}). */
    String file() default "";
}
