package mocks;

import static org.mockito.Mockito.*;
import static net.bytebuddy.matcher.ElementMatchers.named;

import java.util.List;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.implementation.FixedValue;
import net.bytebuddy.implementation.MethodDelegation;

public class MockMain {
    public static class Service {
        public int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }
        public String name() { return "svc"; }
        public final int fin() { return 5; }
        protected int guarded(int x) { return x * 3; }
        public int viaGuarded(int x) { return guarded(x) + 1; }
    }
    public interface Repo { int find(String k); default int twice(String k) { return 2 * find(k); } }
    public static class Client {
        final Service s;
        Client(Service s) { this.s = s; }
        int run(int n) { return s.work(n) + s.name().length() + s.fin() + s.viaGuarded(n); }
    }
    public static class Interceptor { public static int work(int n) { return -n; } }

    public static void main(String[] a) throws Exception {
        Service mock = mock(Service.class);
        when(mock.work(10)).thenReturn(1000);
        when(mock.name()).thenReturn("mocked");
        System.out.println("mock " + new Client(mock).run(10));
        verify(mock).work(10);
        verify(mock, times(1)).name();
        verify(mock, never()).guarded(anyInt());
        Service spy = spy(new Service());
        doReturn("spied!").when(spy).name();
        System.out.println("spy " + new Client(spy).run(10));
        verify(spy, times(1)).work(10);
        verify(spy).guarded(10);
        Repo r = mock(Repo.class);
        when(r.find("a")).thenReturn(3);
        when(r.twice("a")).thenCallRealMethod();
        System.out.println("repo " + r.find("a") + " " + r.find("b") + " " + r.twice("a"));
        List<String> list = mock(List.class);
        when(list.size()).thenReturn(42);
        System.out.println("list " + list.size());
        Class<? extends Service> fixed = new ByteBuddy().subclass(Service.class).method(named("work"))
                .intercept(FixedValue.value(7)).make().load(MockMain.class.getClassLoader()).getLoaded();
        System.out.println("bytebuddy " + new Client(fixed.getDeclaredConstructor().newInstance()).run(3));
        Class<? extends Service> delegated = new ByteBuddy().subclass(Service.class).method(named("work"))
                .intercept(MethodDelegation.to(Interceptor.class)).make().load(MockMain.class.getClassLoader()).getLoaded();
        System.out.println("delegation " + new Client(delegated.getDeclaredConstructor().newInstance()).run(4));
    }
}
