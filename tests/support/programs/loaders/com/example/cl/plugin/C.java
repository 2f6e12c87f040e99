package com.example.cl.plugin;

class C {
    static int factor = 2;
}
