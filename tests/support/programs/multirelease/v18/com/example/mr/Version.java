package com.example.mr;

/** Release 18's copy: a JVM 17 never loads it. */
public class Version {
    public static String describe() {
        return later();
    }

    static String later() {
        return "18+";
    }
}
