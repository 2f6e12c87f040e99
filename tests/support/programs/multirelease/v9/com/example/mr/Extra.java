package com.example.mr;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Only in release 9's layer. */
class Extra {
    static int bonus(int n) {
        List<Circle> circles = new ArrayList<>(List.of(new Circle(3), new Circle(1), new Circle(2)));
        Collections.sort(circles); // calls back into Circle.compareTo: no base class overrides a JDK method
        return circles.get(0).r + n % 7;
    }

    /** A Shape that only the release-9 layer has, called through the interface. */
    static final class Circle implements Shape, Comparable<Circle> {
        final int r;

        Circle(int r) {
            this.r = r;
        }

        public int area() {
            return 3 * r * r;
        }

        @Override
        public int compareTo(Circle other) {
            return Integer.compare(r, other.r);
        }
    }
}
