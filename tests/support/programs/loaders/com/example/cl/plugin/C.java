package com.example.cl.plugin;
class C { static int twice(int x) { return 2 * x; } }
