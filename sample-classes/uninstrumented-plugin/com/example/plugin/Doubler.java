package com.example.plugin;

import com.example.uninstrumented.Base;
import com.example.uninstrumented.Hook;

/** Implements the app's Hook; calls back into Base's methods on whatever it is given. */
public class Doubler implements Hook {
    @Override
    public int apply(Base target, int x) {
        if (x == 0) return Base.square(target.name().length());
        return 2 * target.score(x);
    }

    @Override
    public String label() {
        return "doubler";
    }
}
