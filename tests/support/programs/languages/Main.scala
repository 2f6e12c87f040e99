package com.example.sc

trait Shape { def area: Double; def describe: String = getClass.getSimpleName + "(" + area.toInt + ")" }
case class Sq(s: Int) extends Shape { def area = s * s }
case class Circ(r: Int) extends Shape { def area = 3 * r * r; override def describe = "circle" }

class Box[@specialized(Int) T](val v: T) { def get: T = v }

object Main {
  lazy val table: Map[Int, String] = (1 to 10).map(i => i -> ("v" + i)).toMap

  def classify(x: Any): String = x match {
    case i: Int if i > 5 => "big"
    case i: Int => "small"
    case s: String => "str:" + s
    case Sq(n) => "sq" + n
    case _ => "other"
  }

  def main(args: Array[String]): Unit = {
    val shapes = List(Sq(2), Circ(1), Sq(3))
    println(shapes.map(_.describe).mkString(","))
    println("area=" + shapes.map(_.area).sum)
    println(List[Any](1, 9, "x", Sq(4), 2.0).map(classify).mkString(" "))
    println("table=" + table(7) + " " + table.size)
    val b = new Box[Int](41)
    println("box=" + (b.get + 1))
    var acc = 0
    (1 to 100).foreach { i => if (i % 3 == 0) acc += i }
    println("acc=" + acc)
    val it = Iterator.iterate(1)(_ * 2).takeWhile(_ < 1000)
    println("pow=" + it.toList.mkString(","))
    try { throw new IllegalStateException("boom") } catch { case e: IllegalStateException => println("caught " + e.getMessage) }
  }
}
