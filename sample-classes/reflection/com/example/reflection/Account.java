package com.example.reflection;

/** A class used only through reflection: constructors, methods and fields looked up by name. */
public class Account {
    private static int opened;
    public final String owner;
    private long balance;

    public Account(String owner) {
        this(owner, 0);
    }

    public Account(String owner, long balance) {
        this.owner = owner;
        this.balance = balance;
        opened++;
    }

    private Account() {
        this("nobody", -1);
    }

    public long deposit(long amount) {
        if (amount <= 0) throw new IllegalArgumentException("amount must be positive: " + amount);
        balance += amount;
        return balance;
    }

    public static int opened() { return opened; }

    private String secret(int times) {
        return owner.repeat(times);
    }

    @Override
    public String toString() { return owner + ":" + balance; }
}
