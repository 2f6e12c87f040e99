package com.example.mr;

public class Tool {
    public static int work(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += helper(i);
        }
        return s;
    }

    static int helper(int i) {
        return i * 2;
    }
}
