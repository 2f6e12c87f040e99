package com.example.mr;

import java.util.List;

/** Release 9's copy: List.of and a shape of the release-9 layer. */
public class Shapes {
    static class Square implements Shape {
        final int side;

        Square(int side) {
            this.side = side;
        }

        public int area() {
            return side * side;
        }
    }

    /** Only release 9's copy has it; Tool's copy of that layer calls it. */
    static int count() {
        return all().size();
    }

    public static List<Shape> all() {
        return List.of(new Square(1), new Square(2), new Square(3), new Square(4), new Extra.Circle(1));
    }
}
