package com.example.callbacks;

/** An application CharSequence read by JDK code (StringBuilder.append, regex, String.contentEquals). */
public final class Letters implements CharSequence {
    private final int start;
    private final int length;

    Letters(int start, int length) {
        this.start = start;
        this.length = length;
    }

    @Override
    public int length() { return length; }

    @Override
    public char charAt(int index) {
        if (index < 0 || index >= length) throw new IndexOutOfBoundsException(index);
        return (char) ('a' + (start + index) % 26);
    }

    @Override
    public CharSequence subSequence(int from, int to) { return new Letters(start + from, to - from); }

    @Override
    public String toString() { return new StringBuilder(this).toString(); }
}
