package com.example.jni;

/**
 * JNI: application native methods (a static plain one, one over an int[]), and native
 * methods that call back Java instance methods of the application through JNI (one of them
 * throwing an exception that passes through the native frame and is caught in Java).
 * Needs the library built by sample-classes/jni/build.sh (gcc), on java.library.path.
 */
public class Main {
    public static void main(String[] args) {
        System.out.println("add(40, 2) = " + NativeOps.add(40, 2));
        int[] values = new int[10];
        for (int i = 0; i < values.length; i++) values[i] = i * 3;
        System.out.println("sum(0,3,..,27) = " + NativeOps.sum(values));
        NativeOps ops = new NativeOps(2);
        System.out.println("sumWithCallback(10) = " + ops.sumWithCallback(10) + " after " + ops.callbacks() + " callbacks");
        System.out.println("checked(21) = " + ops.checked(21));
        try {
            ops.checked(-1);
            System.out.println("no exception?");
        } catch (IllegalArgumentException e) {
            System.out.println("exception through native frame: " + e.getMessage());
        }
        System.out.println("callbacks total: " + ops.callbacks());
    }
}
