package com.example.callbacks;

import java.util.Iterator;
import java.util.NoSuchElementException;

/** An application Iterable with its own Iterator, used by for-each and by JDK code. */
public final class Range implements Iterable<Integer> {
    final int from;
    final int to;
    final int step;

    Range(int from, int to, int step) {
        this.from = from;
        this.to = to;
        this.step = step;
    }

    @Override
    public Iterator<Integer> iterator() {
        return new Iterator<Integer>() {
            int next = from;

            @Override
            public boolean hasNext() { return next < to; }

            @Override
            public Integer next() {
                if (next >= to) throw new NoSuchElementException();
                int v = next;
                next += step;
                return v;
            }
        };
    }
}
