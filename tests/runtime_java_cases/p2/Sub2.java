package p2;

/** Not instrumented, inherits p1.Sub's override of m. */
public class Sub2 extends p1.Sub {
}
