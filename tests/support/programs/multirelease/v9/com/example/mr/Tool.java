package com.example.mr;

/** Release 9's copy: calls a method and a class that the base copy does not have. */
public class Tool {
    public static int work(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += newHelper(i);
        }
        return s + Extra.bonus(n) + Shapes.count();
    }

    static int helper(int i) {
        return i * 2;
    }

    static int newHelper(int i) {
        return i + i;
    }
}
