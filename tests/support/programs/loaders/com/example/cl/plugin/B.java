package com.example.cl.plugin;

class B {
    int go(int i) {
        return i * 3;
    }
}
