package com.example.interfaces;

/** The diamond: Left and Right both refine Top.hello(); Both must choose, with X.super.m(). */
public final class Diamond {
    private Diamond() {}

    public interface Top {
        default String hello() { return "top"; }
        default String onlyTop() { return "only top"; }
    }

    public interface Left extends Top {
        @Override
        default String hello() { return "left(" + Top.super.hello() + ")"; }
    }

    public interface Right extends Top {
        @Override
        default String hello() { return "right(" + Top.super.hello() + ")"; }
    }

    public static class Both implements Left, Right {
        @Override
        public String hello() {
            return "both[" + Left.super.hello() + "+" + Right.super.hello() + "]";
        }
    }

    /** Inherits Left's default, and Top's default through it. */
    public static class OnlyLeft implements Left { }
}
