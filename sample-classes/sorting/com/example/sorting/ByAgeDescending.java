package com.example.sorting;

import java.util.Comparator;

/** An application Comparator class (not a lambda) that counts its calls. */
public class ByAgeDescending implements Comparator<Person> {
    int calls;

    @Override
    public int compare(Person a, Person b) {
        calls++;
        return Integer.compare(b.age, a.age);
    }
}
