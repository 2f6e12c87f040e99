package com.example.appleaves;

/** A final class: its instance methods are statically bound, so short ones are leaves. */
public final class Vec {
    static final Vec ORIGIN = new Vec(Geo.clamp(-4, 0, 9), 0);
    static int scale = 2;
    double x;
    double y;

    Vec(double x, double y) {
        this.x = x;
        this.y = Geo.clamp((int) y, -100, 100) + 0.5;   // a leaf called from a constructor
    }

    double getX() {
        return x;
    }

    double dot(Vec o) {
        return x * o.x + y * o.y;
    }

    void setY(double v) {
        y = v * scale;
    }

    int at(int[] a, int i) {
        return a[i];   // may throw: the leaf's own counters stay exact
    }
}
