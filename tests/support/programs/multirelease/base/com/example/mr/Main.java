package com.example.mr;

/** A multi-release jar's program: which copy of Tool, Shapes and Version runs depends on the JVM. */
public class Main {
    public static void main(String[] args) {
        System.out.println("work=" + Tool.work(300));
        int area = 0;
        for (Shape s : Shapes.all()) {
            area += s.area();
        }
        System.out.println("area=" + area);
        System.out.println("version=" + Version.describe());
        System.out.println("names=" + new Names("a", "b").size());
        System.out.println("more=" + new MoreNames("x").size());
        System.out.println("interrupted=" + Worker.interrupted());
    }
}
