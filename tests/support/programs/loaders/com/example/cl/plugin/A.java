package com.example.cl.plugin;

public class A implements Runnable {
    public void run() {
        int s = 0;
        for (int i = 0; i < 3; i++) s += new B().go(i);   // resolving B: the JVM calls the loader
        System.out.println("sum=" + s + " " + C.twice(s));
    }
}
