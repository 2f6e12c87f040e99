package com.example.sorting;

/** A Comparable application class (natural order: last name, then first name, then age). */
public final class Person implements Comparable<Person> {
    final String first;
    final String last;
    final int age;

    Person(String first, String last, int age) {
        this.first = first;
        this.last = last;
        this.age = age;
    }

    String last() { return last; }

    int age() { return age; }

    @Override
    public int compareTo(Person o) {
        int c = last.compareTo(o.last);
        if (c != 0) return c;
        c = first.compareTo(o.first);
        return c != 0 ? c : Integer.compare(age, o.age);
    }

    @Override
    public String toString() { return first + " " + last + " (" + age + ")"; }
}
