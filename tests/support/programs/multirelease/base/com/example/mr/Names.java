package com.example.mr;

import java.util.ArrayList;

/**
 * The base copy inherits {@code size()} from the JDK; release 9's copy overrides it. A caller
 * planned against the wrong copy calls an ESI method that the loaded copy does not have.
 */
public class Names extends ArrayList<String> {
    Names(String... names) {
        for (String n : names) {
            add(n);
        }
    }
}
