package com.example.enums;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;

/**
 * Enums: constants with bodies (abstract method implemented per constant), fields and
 * constructors, a static initialiser in an enum, values()/valueOf()/ordinal()/name()/compareTo,
 * switch statements on enums (old style, with fall-through and default) and switch
 * expressions (arrow form, yield), EnumMap/EnumSet, an enum implementing an interface, and
 * a failing valueOf.
 */
public class Main {
    enum Day { MON, TUE, WED, THU, FRI, SAT, SUN }

    static String kind(Day d) {
        switch (d) {
            case SAT:
            case SUN:
                return "weekend";
            case FRI:
                return "almost weekend";
            default:
                return "weekday";
        }
    }

    static int hours(Day d) {
        return switch (d) {
            case MON, TUE, WED, THU -> 8;
            case FRI -> 6;
            default -> {
                int h = d.ordinal() - 5;
                yield h;
            }
        };
    }

    static int fallThrough(Operation op) {
        int score = 0;
        switch (op) {
            case PLUS:
                score += 1;
            case MINUS:
                score += 10;
                break;
            case TIMES:
                score += 100;
                break;
            default:
                score = -1;
        }
        return score;
    }

    public static void main(String[] args) {
        for (Operation op : Operation.values()) {
            System.out.println(op + " " + op.symbol() + " ordinal " + op.ordinal() + ": 3" + op.symbol() + "4 = " + op.apply(3, 4)
                    + ", commutative " + op.commutative() + ", fallThrough " + fallThrough(op)
                    + ", body class is enum's: " + (op.getDeclaringClass() == Operation.class));
        }
        System.out.println("valueOf(TIMES).apply(6,7) = " + Operation.valueOf("TIMES").apply(6, 7));
        try {
            Operation.valueOf("DIVIDE");
        } catch (IllegalArgumentException e) {
            System.out.println("valueOf(DIVIDE) failed: IllegalArgumentException");
        }

        int week = 0;
        StringBuilder sb = new StringBuilder();
        for (Day d : Day.values()) {
            week += hours(d);
            sb.append(d.name().charAt(0)).append(d.name().substring(1).toLowerCase()).append('=').append(kind(d)).append(' ');
        }
        System.out.println(sb.toString().trim());
        System.out.println("hours per week: " + week);
        System.out.println("WED vs FRI: " + Day.WED.compareTo(Day.FRI) + ", equals: " + Day.valueOf("WED").equals(Day.WED));

        EnumMap<Day, Integer> load = new EnumMap<>(Day.class);
        for (Day d : EnumSet.range(Day.TUE, Day.FRI)) load.put(d, hours(d) * d.ordinal());
        System.out.println("EnumMap: " + load);
        EnumSet<Day> off = EnumSet.complementOf(EnumSet.range(Day.MON, Day.FRI));
        System.out.println("EnumSet complement: " + off + ", contains SUN " + off.contains(Day.SUN));

        long total = 0;
        for (Planet p : Planet.values()) total += (long) p.massE20 * p.getAsInt();
        System.out.println("planets: " + java.util.Arrays.toString(Planet.values()) + ", weighted " + total);
        System.out.println("byRadius(6378) = " + Planet.byRadius(6378) + ", byRadius(1) = " + Planet.byRadius(1));
        Map<Operation, Integer> results = new EnumMap<>(Operation.class);
        for (Operation op : Operation.values()) results.put(op, op.apply(2, 5));
        System.out.println("results: " + results);
    }
}
