package guice;

import com.google.inject.*;
import com.google.inject.matcher.Matchers;
import org.aopalliance.intercept.MethodInterceptor;
import java.lang.annotation.*;

public class GuiceMain {
    @Retention(RetentionPolicy.RUNTIME) @Target(ElementType.METHOD) public @interface Logged {}
    public interface Store { int put(String k); }
    public static class MemStore implements Store { int n; public int put(String k) { return ++n * 10 + k.length(); } }
    public static class Service {
        @Inject Store store;
        @Logged public int handle(String k) { return store.put(k) + helper(k); }
        protected int helper(String k) { return k.hashCode() % 7; }
        public final int fin() { return 1; }
    }
    static int intercepted;
    public static void main(String[] a) {
        Injector inj = Guice.createInjector(new AbstractModule() {
            @Override protected void configure() {
                bind(Store.class).to(MemStore.class).in(Singleton.class);
                bindInterceptor(Matchers.any(), Matchers.annotatedWith(Logged.class),
                        (MethodInterceptor) inv -> { intercepted++; return (Integer) inv.proceed() + 1000; });
            }
        });
        Service s = inj.getInstance(Service.class);
        int t = 0;
        for (String k : new String[] {"a", "bb", "ccc"}) t += s.handle(k);
        System.out.println("total " + t + " intercepted " + intercepted + " fin " + s.fin() + " " + (s.getClass() != Service.class));
    }
}
