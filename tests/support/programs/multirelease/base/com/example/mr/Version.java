package com.example.mr;

public class Version {
    public static String describe() {
        return "base";
    }
}
