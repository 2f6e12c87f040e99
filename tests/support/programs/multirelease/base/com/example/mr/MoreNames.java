package com.example.mr;

/** Base only: its super call reaches the JDK's {@code size()} or release 9's {@code Names.size()}. */
public class MoreNames extends Names {
    MoreNames(String... names) {
        super(names);
    }

    @Override
    public int size() {
        return super.size() * 2;
    }
}
