package com.example.natives;

import java.lang.reflect.Array;
import java.util.Arrays;

/**
 * Calls into native JDK methods (and intrinsics) from application code: System.arraycopy
 * (including overlapping copies and a failing copy), Object.clone of arrays and of an app
 * Cloneable class (native Object.clone calling no constructor), Thread.currentThread,
 * Class.isInstance/isAssignableFrom/getSuperclass/isArray, Array.newInstance/getLength,
 * String.intern, Float/Double raw bit conversions, StrictMath and Math functions,
 * System.identityHashCode compared with itself (never printed: it differs between runs),
 * Runtime/System properties that are fixed (line separator), and Thread.holdsLock.
 */
public class Main {
    static final class Cell implements Cloneable {
        int value;
        int[] history = new int[3];
        static int constructed;

        Cell(int value) {
            this.value = value;
            constructed++;
        }

        @Override
        public Cell clone() {
            try {
                Cell c = (Cell) super.clone(); // native Object.clone: no constructor runs
                c.history = history.clone();
                return c;
            } catch (CloneNotSupportedException e) {
                throw new AssertionError(e);
            }
        }
    }

    static class Base { }

    static class Derived extends Base implements Runnable {
        @Override public void run() { }
    }

    public static void main(String[] args) {
        int[] src = new int[12];
        for (int i = 0; i < src.length; i++) src[i] = i * i;
        int[] dst = new int[8];
        System.arraycopy(src, 3, dst, 1, 6);
        System.out.println("arraycopy: " + Arrays.toString(dst));
        System.arraycopy(src, 0, src, 2, 8); // overlapping: behaves as if through a temporary
        System.out.println("overlapping: " + Arrays.toString(src));
        try {
            System.arraycopy(src, 0, new long[4], 0, 2);
        } catch (ArrayStoreException e) {
            System.out.println("arraycopy int[] -> long[]: ArrayStoreException");
        }
        try {
            System.arraycopy(src, 10, dst, 0, 5);
        } catch (IndexOutOfBoundsException e) {
            System.out.println("arraycopy out of range: " + e.getClass().getSimpleName());
        }
        Object[] objs = {"a", 1, 2.5};
        Object[] moreObjs = new Object[5];
        System.arraycopy(objs, 0, moreObjs, 2, 3);
        System.out.println("object arraycopy: " + Arrays.toString(moreObjs));

        int[] cl = dst.clone();
        cl[0] = 99;
        System.out.println("array clone independent: " + (dst[0] != cl[0]) + " " + Arrays.toString(cl));
        Cell cell = new Cell(5);
        cell.history[1] = 7;
        Cell copy = cell.clone();
        copy.value = 6;
        copy.history[1] = 8;
        System.out.println("Cell clone: " + cell.value + "/" + copy.value + " history " + cell.history[1] + "/" + copy.history[1]
                + " constructors run " + Cell.constructed);

        Thread me = Thread.currentThread();
        System.out.println("current thread: " + me.getName() + ", holds lock on cell: " + Thread.holdsLock(cell));
        synchronized (cell) {
            System.out.println("inside synchronized: holds lock " + Thread.holdsLock(cell));
        }

        Object d = new Derived();
        System.out.println("isInstance Base " + Base.class.isInstance(d) + ", Runnable " + Runnable.class.isInstance(d)
                + ", String " + String.class.isInstance(d) + ", assignable " + Base.class.isAssignableFrom(Derived.class)
                + ", superclass " + Derived.class.getSuperclass().getSimpleName() + ", array " + dst.getClass().isArray()
                + ", component " + dst.getClass().getComponentType());

        Object grid = Array.newInstance(int.class, 3, 4);
        Array.setInt(Array.get(grid, 2), 3, 42);
        System.out.println("Array.newInstance: " + Array.getLength(grid) + "x" + Array.getLength(Array.get(grid, 0))
                + " grid[2][3]=" + ((int[][]) grid)[2][3]);

        String built = new StringBuilder("inte").append("rned").toString();
        System.out.println("intern: " + (built == "interned") + " -> " + (built.intern() == "interned"));

        System.out.println("float bits: " + Integer.toHexString(Float.floatToRawIntBits(1.5f)) + " " + Float.intBitsToFloat(0x40490fdb)
                + ", double bits: " + Long.toHexString(Double.doubleToRawLongBits(-2.0)) + " " + Double.longBitsToDouble(0x3ff8000000000000L));
        double acc = 0;
        for (int i = 1; i <= 10; i++) acc += StrictMath.sin(i) * StrictMath.cos(i) + StrictMath.log(i) + StrictMath.exp(-i);
        System.out.println(String.format("StrictMath sum: %.9f", acc));
        System.out.println("Math: sqrt(2)=" + Math.sqrt(2) + " floor(-2.5)=" + Math.floor(-2.5) + " pow(3,7)=" + Math.pow(3, 7)
                + " abs(-9)=" + Math.abs(-9) + " max=" + Math.max(4L, 9L) + " floorMod(-7,3)=" + Math.floorMod(-7, 3)
                + " hypot=" + Math.hypot(3, 4) + String.format(" atan2=%.6f", Math.atan2(1, 1)));

        int h1 = System.identityHashCode(cell), h2 = System.identityHashCode(cell);
        System.out.println("identityHashCode stable for one object: " + (h1 == h2) + ", equals hashCode(): " + (h1 == cell.hashCode()));
        System.out.println("line separator length: " + System.lineSeparator().length()
                + ", Integer.bitCount(255)=" + Integer.bitCount(255) + ", Long.numberOfTrailingZeros(64)=" + Long.numberOfTrailingZeros(64));
    }
}
