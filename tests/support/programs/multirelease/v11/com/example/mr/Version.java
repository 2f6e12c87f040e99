package com.example.mr;

/** Release 11's copy: a private method the base copy does not have (a nestmate call on 11+). */
public class Version {
    public static String describe() {
        return label(" 11+ ".strip());
    }

    private static String label(String s) {
        return "v" + s;
    }
}
