package com.example.sorting;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Comparators and sorting: Collections.sort and List.sort with an application Comparator
 * class, anonymous and lambda comparators, Comparator.comparing chains over method
 * references, Arrays.sort of Comparable application objects (merge sort for objects, with
 * more than 32 elements so TimSort really merges), Arrays.sort of primitives, binary search
 * with a comparator, TreeMap/TreeSet/PriorityQueue ordering app objects, reversed orders,
 * Collections.max/min, and a stable-sort check.
 */
public class Main {
    static List<Person> people() {
        String[] firsts = {"Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "John", "Niklaus", "Tony", "Frances"};
        String[] lasts = {"Hopper", "Knuth", "Liskov", "Turing", "Lovelace", "Dijkstra", "Wirth"};
        List<Person> list = new ArrayList<>();
        int seed = 17;
        for (int i = 0; i < 40; i++) {
            seed = (seed * 1103 + 12345) % 10007;
            list.add(new Person(firsts[seed % firsts.length], lasts[(seed / 7) % lasts.length], 20 + seed % 60));
        }
        return list;
    }

    static String head(List<?> l, int n) {
        return l.subList(0, n).toString();
    }

    public static void main(String[] args) {
        List<Person> base = people();

        List<Person> natural = new ArrayList<>(base);
        Collections.sort(natural);
        System.out.println("natural: " + head(natural, 5));

        List<Person> byAge = new ArrayList<>(base);
        ByAgeDescending cmp = new ByAgeDescending();
        Collections.sort(byAge, cmp);
        System.out.println("by age desc: " + head(byAge, 5) + " (comparator called: " + (cmp.calls > 0) + ")");

        List<Person> anon = new ArrayList<>(base);
        anon.sort(new Comparator<Person>() {
            @Override
            public int compare(Person a, Person b) {
                int c = Integer.compare(a.first.length(), b.first.length());
                return c != 0 ? c : a.first.compareTo(b.first);
            }
        });
        System.out.println("by first-name length: " + head(anon, 5));

        List<Person> chained = new ArrayList<>(base);
        chained.sort(Comparator.comparing(Person::last).reversed().thenComparingInt(Person::age).thenComparing(p -> p.first));
        System.out.println("last desc, age, first: " + head(chained, 5));

        Person[] array = base.toArray(new Person[0]);
        Arrays.sort(array);
        System.out.println("Arrays.sort natural: " + array[0] + " .. " + array[array.length - 1]);
        Arrays.sort(array, Collections.reverseOrder());
        System.out.println("reverse natural: " + array[0] + " .. " + array[array.length - 1]);
        Arrays.sort(array, 5, 15, (a, b) -> a.age - b.age);
        System.out.println("partial sort by age [5,15): " + array[5].age + " .. " + array[14].age);

        int[] ints = new int[30];
        for (int i = 0; i < ints.length; i++) ints[i] = (i * 7919) % 97;
        Arrays.sort(ints);
        System.out.println("ints: " + Arrays.toString(Arrays.copyOf(ints, 10)) + ", search 40 -> " + (Arrays.binarySearch(ints, 40) >= 0));

        Collections.sort(natural);
        int pos = Collections.binarySearch(natural, natural.get(17));
        System.out.println("binarySearch natural -> " + pos + " " + natural.get(pos).equals(natural.get(17)));
        Comparator<Person> byLast = Comparator.comparing(Person::last);
        List<Person> byLastList = new ArrayList<>(base);
        byLastList.sort(byLast);
        System.out.println("binarySearch by last name: " + byLastList.get(Collections.binarySearch(byLastList, new Person("?", "Turing", 0), byLast)).last);

        // stability: people with equal last names keep their original relative order
        boolean stable = true;
        for (int i = 1; i < byLastList.size(); i++) {
            Person a = byLastList.get(i - 1), b = byLastList.get(i);
            if (a.last.equals(b.last) && base.indexOf(a) > base.indexOf(b)) stable = false;
        }
        System.out.println("stable: " + stable);

        TreeSet<Person> set = new TreeSet<>(new ByAgeDescending());
        set.addAll(base);
        System.out.println("TreeSet (distinct ages) size " + set.size() + ": oldest " + set.first().age + ", youngest " + set.last().age);

        TreeMap<Person, Integer> map = new TreeMap<>();
        for (Person p : base) map.merge(p, 1, Integer::sum);
        System.out.println("TreeMap first " + map.firstKey() + " x" + map.firstEntry().getValue() + ", last " + map.lastKey());

        PriorityQueue<Person> pq = new PriorityQueue<>(Comparator.comparingInt(Person::age).thenComparing(Comparator.naturalOrder()));
        pq.addAll(base);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 4; i++) sb.append(pq.poll().age).append(' ');
        System.out.println("PriorityQueue youngest: " + sb.toString().trim());

        System.out.println("max natural: " + Collections.max(base) + ", min by age: " + Collections.min(base, Comparator.comparingInt(Person::age)));
        List<String> names = new ArrayList<>();
        for (Person p : natural.subList(0, 8)) names.add(p.first);
        names.sort(String.CASE_INSENSITIVE_ORDER.reversed());
        System.out.println("names reversed: " + names);
    }
}
