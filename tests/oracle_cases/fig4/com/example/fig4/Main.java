package com.example.fig4;

public class Main {
    public static void main(String[] args) {
        new Foo().f();
    }
}
