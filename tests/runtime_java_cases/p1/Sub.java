package p1;

/** Not instrumented: overrides m and calls super.m (back into Base's N2B wrapper). */
public class Sub extends Base {
    @Override
    public int m(int x) {
        return super.m(x) * 10;
    }
}
