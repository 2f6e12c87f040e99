package com.example.plugin;

import com.example.uninstrumented.Base;

/** Overrides some of Base's virtual methods (not weight()), calling super and Base statics. */
public class Fancy extends Base {
    public Fancy(int id) {
        super(id);
    }

    @Override
    public String name() {
        return "fancy-" + super.name();
    }

    @Override
    public int score(int x) {
        return super.score(x) * 10 + Base.square(x);
    }

    @Override
    protected void onEvent(String what) {
        super.onEvent("[fancy] " + what);
    }
}
