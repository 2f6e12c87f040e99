package com.example.uninstrumented;

import java.util.ArrayList;
import java.util.List;

/**
 * Uninstrumented subclasses: Base (this package, instrumented) is extended by classes of
 * com.example.plugin, compiled separately into their own jar (sample-classes/uninstrumented-plugin)
 * and loaded by name, so this code does not depend on them at compile time. A test rewrites
 * only this package: virtual calls from instrumented code then land in uninstrumented overrides
 * (Fancy.name/score/onEvent, even from Base's constructor), which call super methods and
 * static methods back in instrumented code; a plugin that overrides nothing (Plain) runs only
 * instrumented code on an uninstrumented receiver; a plugin Hook receives Base objects and
 * calls their methods; and an instrumented local subclass sits next to them for comparison.
 */
public class Main {
    static final String[] PLUGINS = {"com.example.plugin.Fancy", "com.example.plugin.Plain"};

    static final class Local extends Base {
        Local(int id) { super(id); }
        @Override public String name() { return "local" + id; }
        @Override protected int weight() { return 3; }
    }

    static Base load(String className, int id) throws ReflectiveOperationException {
        return (Base) Class.forName(className).getConstructor(int.class).newInstance(id);
    }

    public static void main(String[] args) throws Exception {
        List<Base> all = new ArrayList<>();
        all.add(new Base(1));
        all.add(new Local(2));
        for (int i = 0; i < PLUGINS.length; i++) all.add(load(PLUGINS[i], 3 + i));
        for (Base b : all) System.out.println(b.getClass().getSimpleName() + ": " + b.describe(5));
        for (Base b : all) System.out.println(b.getClass().getSimpleName() + " events: " + b.events());

        Hook hook = (Hook) Class.forName("com.example.plugin.Doubler").getConstructor().newInstance();
        int total = 0;
        for (Base b : all) total += hook.apply(b, 4);
        System.out.println(hook.label() + " total: " + total);
        System.out.println("square via plugin: " + hook.apply(all.get(2), 0) + ", static square(12) = " + Base.square(12));
    }
}
