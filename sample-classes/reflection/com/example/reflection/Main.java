package com.example.reflection;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

/**
 * Reflection: Class.forName, Constructor.newInstance (public and private), Method.invoke on
 * instance, static and private methods (and an exception thrown by the invoked method,
 * wrapped in InvocationTargetException), Field get/set (public, private, static), a
 * java.lang.reflect.Proxy implementing an app interface through an app InvocationHandler
 * (including its default method, called through InvocationHandler.invokeDefault), and
 * method handles (findVirtual, findStatic, findConstructor, invokeExact, bindTo).
 *
 * Members are only ever looked up by name: the program prints nothing that depends on which
 * members a class has (a rewriter may add some) or on their order.
 */
public class Main {
    /** Records every call and answers them itself (greetTwice goes to the interface's default). */
    static final class Recorder implements InvocationHandler {
        final List<String> calls = new ArrayList<>();

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            calls.add(method.getName());
            switch (method.getName()) {
                case "greet":
                    return "hello, " + args[0];
                case "add":
                    return (Integer) args[0] + (Integer) args[1];
                case "greetTwice":
                    return InvocationHandler.invokeDefault(proxy, method, args);
                case "toString":
                    return "Recorder proxy";
                default:
                    throw new UnsupportedOperationException(method.getName());
            }
        }
    }

    static int triple(int x) { return 3 * x; }

    public static void main(String[] args) throws Throwable {
        Class<?> cls = Class.forName("com.example.reflection.Account");
        System.out.println("class: " + cls.getSimpleName() + " in " + cls.getPackageName());

        Constructor<?> ctor = cls.getConstructor(String.class, long.class);
        Object acct = ctor.newInstance("alice", 50L);
        Object acct2 = cls.getConstructor(String.class).newInstance("bob");
        Constructor<?> hidden = cls.getDeclaredConstructor();
        hidden.setAccessible(true);
        Object acct3 = hidden.newInstance();
        System.out.println("constructed: " + acct + " " + acct2 + " " + acct3);

        Method deposit = cls.getMethod("deposit", long.class);
        System.out.println("deposit -> " + deposit.invoke(acct, 25L) + ", " + deposit.invoke(acct2, 5L));
        try {
            deposit.invoke(acct, -3L);
        } catch (InvocationTargetException e) {
            System.out.println("invoke threw " + e.getCause().getClass().getSimpleName() + ": " + e.getCause().getMessage());
        }
        Method opened = cls.getMethod("opened");
        System.out.println("static opened() = " + opened.invoke(null));
        Method secret = cls.getDeclaredMethod("secret", int.class);
        secret.setAccessible(true);
        System.out.println("private secret(3) = " + secret.invoke(acct, 3));

        Field owner = cls.getField("owner");
        Field balance = cls.getDeclaredField("balance");
        balance.setAccessible(true);
        balance.setLong(acct2, 1000L);
        Field openedField = cls.getDeclaredField("opened");
        openedField.setAccessible(true);
        System.out.println("fields: owner=" + owner.get(acct) + " balance=" + balance.getLong(acct) + " bob now " + acct2
                + " opened=" + openedField.getInt(null));

        Method toString = Object.class.getMethod("toString");
        System.out.println("Object.toString invoked virtually: " + toString.invoke(acct));

        Recorder recorder = new Recorder();
        Greeter g = (Greeter) Proxy.newProxyInstance(Greeter.class.getClassLoader(), new Class<?>[] {Greeter.class}, recorder);
        System.out.println("proxy: " + g.greet("world") + ", add " + g.add(20, 22) + ", twice: " + g.greetTwice("you") + ", " + g);
        System.out.println("proxy calls: " + recorder.calls + ", is proxy " + Proxy.isProxyClass(g.getClass())
                + ", instance of Greeter " + Greeter.class.isInstance(g));

        MethodHandles.Lookup lookup = MethodHandles.lookup();
        MethodHandle mhTriple = lookup.findStatic(Main.class, "triple", MethodType.methodType(int.class, int.class));
        int t = (int) mhTriple.invokeExact(14);
        MethodHandle mhDeposit = lookup.findVirtual(Account.class, "deposit", MethodType.methodType(long.class, long.class));
        long after = (long) mhDeposit.invokeExact((Account) acct, 100L);
        MethodHandle mhNew = lookup.findConstructor(Account.class, MethodType.methodType(void.class, String.class, long.class));
        Account carol = (Account) mhNew.invokeExact("carol", 7L);
        MethodHandle bound = mhDeposit.bindTo(carol);
        long carolAfter = (long) bound.invokeExact(3L);
        MethodHandle greet = lookup.findVirtual(Greeter.class, "greet", MethodType.methodType(String.class, String.class));
        System.out.println("method handles: triple(14)=" + t + " alice after=" + after + " carol=" + carol + " bound deposit=" + carolAfter
                + " via proxy: " + (String) greet.invokeExact(g, "mh"));
        System.out.println("accounts opened: " + Account.opened());
    }
}
