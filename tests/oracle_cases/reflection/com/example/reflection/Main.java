package com.example.reflection;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/** Callbacks through reflection; the exceptions cross Method.invoke (native invoke0 for the first
 *  calls, a generated accessor later) and come back as InvocationTargetException. */
public class Main {
    public static int boom(int x) {
        if (x > 0) throw new IllegalStateException("boom");
        return x;
    }

    static int call(Method m, int x) {
        try {
            return (Integer) m.invoke(null, x);
        } catch (InvocationTargetException e) {
            return -1;
        } catch (IllegalAccessException e) {
            return -2;
        }
    }

    public static void main(String[] args) throws Exception {
        Method m = Main.class.getMethod("boom", int.class);
        int s = 0;
        for (int i = 0; i < 20; i++) s += call(m, i % 2);
        System.out.println(s);
    }
}
