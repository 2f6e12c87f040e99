package jprewrite.junit;

import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;

import jprewrite.runtime.Measurement;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;

/**
 * The JUnit 5 extension behind {@link BytecodeBudget} and {@link BytecodeBaseline}: it measures the
 * test method body alone (an {@link InvocationInterceptor} around the test method invocation, so
 * {@code @BeforeEach}/{@code @AfterEach} are outside) and checks the annotations. The annotations
 * register it themselves; {@code @ExtendWith(BytecodeExtension.class)} and JUnit's automatic
 * detection ({@code junit.jupiter.extensions.autodetection.enabled=true}) work too. Tests without
 * the annotations run untouched.
 */
public final class BytecodeExtension implements InvocationInterceptor {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(BytecodeExtension.class);
    private static final String ACTIVE = "measuring";

    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
            ExtensionContext context) throws Throwable {
        intercept(invocation, call, context);
    }

    @Override
    public void interceptTestTemplateMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
            ExtensionContext context) throws Throwable {
        intercept(invocation, call, context);
    }

    private static void intercept(final Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
            ExtensionContext context) throws Throwable {
        Method method = call.getExecutable();
        Class<?> testClass = context.getRequiredTestClass();
        BytecodeBudget budget = find(method, testClass, BytecodeBudget.class);
        BytecodeBaseline baseline = find(method, testClass, BytecodeBaseline.class);
        ExtensionContext.Store store = context.getStore(NAMESPACE);
        if ((budget == null && baseline == null) || store.get(ACTIVE) != null) {
            invocation.proceed();   // not ours, or another registration of this extension measures already
            return;
        }
        store.put(ACTIVE, Boolean.TRUE);
        Measurement m;
        try {
            m = Checks.measure(new Checks.Body() {
                @Override
                public void run() throws Throwable {
                    invocation.proceed();
                }
            });
        } finally {
            store.remove(ACTIVE);
        }
        Measurement body = Checks.testBody(m, method);
        context.publishReportEntry("jprewrite.bytecodes", Long.toString(body.bytecodes()));
        String test = Contexts.display(Checks.methodString(method));
        Checks.verify(body, test, budget, baseline, baseline == null ? null
                : Checks.baselineFile(baseline, testClass, Checks.methodKey(method, context.getUniqueId())));
    }

    /** The annotation on the method, else on the test class or a class enclosing it (nested tests). */
    static <A extends Annotation> A find(Method method, Class<?> testClass, Class<A> type) {
        A a = annotation(method, type);
        for (Class<?> c = testClass; a == null && c != null; c = c.getEnclosingClass()) {
            a = annotation(c, type);
        }
        return a;
    }

    /** Directly present, or on an annotation that is (meta-annotation, one level). */
    private static <A extends Annotation> A annotation(AnnotatedElement e, Class<A> type) {
        A a = e.getAnnotation(type);
        if (a != null) {
            return a;
        }
        for (Annotation meta : e.getAnnotations()) {
            a = meta.annotationType().getAnnotation(type);
            if (a != null) {
                return a;
            }
        }
        return null;
    }
}
