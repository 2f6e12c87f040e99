package com.example.mr;

import java.util.ArrayList;

/** Release 9's copy: declares {@code size()} (the base copy inherits the JDK's). */
public class Names extends ArrayList<String> {
    Names(String... names) {
        for (String n : names) {
            add(n);
        }
    }

    @Override
    public int size() {
        return super.size() + 100;
    }
}
