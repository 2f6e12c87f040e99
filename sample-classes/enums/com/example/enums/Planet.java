package com.example.enums;

/** An enum with fields, a constructor, a static lookup table built in its static initialiser, and an interface. */
public enum Planet implements Comparable<Planet>, java.util.function.IntSupplier {
    MERCURY(3303, 2439), VENUS(48690, 6052), EARTH(59760, 6378), MARS(6421, 3397);

    private static final java.util.Map<Integer, Planet> BY_RADIUS = new java.util.TreeMap<>();

    static {
        for (Planet p : values()) BY_RADIUS.put(p.radiusKm, p);
    }

    final int massE20;
    final int radiusKm;

    Planet(int massE20, int radiusKm) {
        this.massE20 = massE20;
        this.radiusKm = radiusKm;
    }

    static Planet byRadius(int r) { return BY_RADIUS.get(r); }

    @Override
    public int getAsInt() { return radiusKm; }
}
