package com.example.fig4;

// Fig. 4 of Binder & Hulaas, "Exact and Portable Profiling for the JVM Using Bytecode
// Instruction Counting" (the class before rewriting), unchanged apart from the package.
class Foo {
    void f() { for (int i=1;i<=10;++i) { h(); g(i); } }
    void g(int i) { for (int j=1;j<=i;++j) h(); }
    void h() { }
}
