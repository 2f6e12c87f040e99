package com.example.callbacks;

import java.util.AbstractList;

/** An application AbstractList: the JDK's iterators, toString, contains, sort... call get/size/set. */
public final class Squares extends AbstractList<Integer> {
    private final int[] values;
    int getCalls;

    Squares(int n) {
        values = new int[n];
        for (int i = 0; i < n; i++) values[i] = (n - i) * (n - i);
    }

    @Override
    public Integer get(int index) {
        getCalls++;
        return values[index];
    }

    @Override
    public Integer set(int index, Integer value) {
        int old = values[index];
        values[index] = value;
        return old;
    }

    @Override
    public int size() { return values.length; }
}
