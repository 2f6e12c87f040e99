package com.example.kt

inline class Meters(val v: Int)

interface Greeter {
    fun greet(n: String): String = "hi $n"
}

data class Point(val x: Int, val y: Int) : Greeter

object Registry {
    private val items = mutableListOf<Point>()
    fun add(p: Point) { items += p }
    fun total(): Int = items.sumBy { it.x * it.y }
}

sealed class Expr {
    class Num(val n: Int) : Expr()
    class Add(val a: Expr, val b: Expr) : Expr()
}

fun eval(e: Expr): Int = when (e) {
    is Expr.Num -> e.n
    is Expr.Add -> eval(e.a) + eval(e.b)
}

fun fib(): Sequence<Long> = sequence {
    var a = 0L
    var b = 1L
    while (true) {
        yield(a)
        val t = a + b
        a = b
        b = t
    }
}

inline fun <reified T> countOf(xs: List<Any>): Int = xs.count { it is T }

fun Meters.double(): Meters = Meters(v * 2)

class Lazy2 {
    val value: Int by lazy { (1..100).sum() }
}

fun main(args: Array<String>) {
    for (i in 1..5) Registry.add(Point(i, i + 1))
    println("total=" + Registry.total())
    println(Point(1, 2).greet("kt") + " " + Point(3, 4).copy(y = 9))
    println("eval=" + eval(Expr.Add(Expr.Num(3), Expr.Add(Expr.Num(4), Expr.Num(5)))))
    println("fib=" + fib().take(20).joinToString(","))
    println("count=" + countOf<String>(listOf("a", 1, "b", 2.0)))
    println("meters=" + Meters(21).double().v)
    println("lazy=" + Lazy2().value)
    val m = HashMap<Point, Int>()
    for (i in 0 until 50) m[Point(i % 7, i % 3)] = i
    println("map=" + m.size + " " + m.keys.sortedBy { it.x * 10 + it.y }.first())
}
