package com.example.foreign.plugin;

import com.example.foreign.app.Base;

/** Not application code: overrides value() and calls the application's version. */
public class Fancy extends Base {
    @Override
    public int value() { return 10 + super.value(); }
}
