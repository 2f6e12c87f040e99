package com.example.foreign.app;

import com.example.foreign.plugin.Fancy;

/** Run with only com.example.foreign.app. instrumented: Fancy (plugin) overrides value() and
 *  calls super.value(), so Base.value is entered both directly and through Fancy. */
public class Main {
    public static void main(String[] args) {
        Base plain = new Base();
        Base fancy = new Fancy();
        System.out.println(plain.value() + " " + fancy.value() + " " + fancy.twice());
    }
}
