package com.example.lambdas;

import java.util.Arrays;
import java.util.List;

/** Lambdas: bodies run beneath the boundary of the interface method that calls them. */
public class Main {
    static int total;

    public static void main(String[] args) {
        Runnable r = () -> total += 1;
        r.run();
        r.run();
        List<Integer> xs = Arrays.asList(1, 2, 3);
        xs.forEach(x -> total += x);
        System.out.println(total);
    }
}
