package programs;

/**
 * A program in the Java 1.3 language, for compilers that still emit JSR/RET for finally
 * (ecj -1.4: class files of version 46): finally blocks left by return, break, continue and
 * exceptions, nested and in loops, synchronized blocks, labelled loops, switches, inner classes.
 * Prints one line per part and a checksum.
 */
public class Legacy {
    static long acc = 17;
    static int finals;

    static void mix(long v) {
        acc = acc * 31 + v;
    }

    static int divide(int a, int b) {
        try {
            return a / b;
        } catch (ArithmeticException e) {
            return -1;
        } finally {
            finals++;
        }
    }

    static int nested(int x) {
        int r = 0;
        try {
            try {
                if (x % 3 == 0) throw new IllegalStateException("x" + x);
                r += x;
            } finally {
                r *= 2;
                if (x % 5 == 0) return r + 1000;
            }
        } catch (IllegalStateException e) {
            r += e.getMessage().length();
        } finally {
            r++;
        }
        return r;
    }

    static int loops(int n) {
        int r = 0;
        outer:
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                try {
                    if (j == i) continue outer;
                    if (i * j > 20) break outer;
                    r += i ^ j;
                } finally {
                    r++;
                }
            }
        }
        return r;
    }

    static final Object LOCK = new Object();

    static int locked(int x) {
        synchronized (LOCK) {
            try {
                if (x < 0) throw new RuntimeException();
                return x * 3;
            } catch (RuntimeException e) {
                return 7;
            }
        }
    }

    static String sw(int x) {
        switch (x % 7) {
        case 0: return "zero";
        case 1:
        case 2: return "small";
        case 5: return "five";
        default:
            switch (x) {
            case 100: return "hundred";
            case -3: return "minus three";
            default: return "other";
            }
        }
    }

    interface Op {
        long apply(long a, long b);
    }

    class Inner implements Op {
        final int k;

        Inner(int k) {
            this.k = k;
        }

        public long apply(long a, long b) {
            return a * k + b + base;
        }
    }

    int base = 5;

    static double maths(int n) {
        double d = 1.0;
        long l = 1;
        for (int i = 1; i <= n; i++) {
            d = d * 1.5 + i / 3.0;
            l = l * 7 + (l >>> 3) ^ i;
        }
        return d + l % 1000;
    }

    public static void main(String[] args) {
        for (int i = -2; i < 12; i++) mix(divide(100, i - 4));
        System.out.println("divide " + acc + " finals=" + finals);
        for (int i = 0; i < 16; i++) mix(nested(i));
        System.out.println("nested " + acc);
        for (int i = 0; i < 9; i++) mix(loops(i));
        System.out.println("loops " + acc);
        for (int i = -3; i < 4; i++) mix(locked(i));
        System.out.println("locked " + acc);
        StringBuffer sb = new StringBuffer();
        int[] xs = {0, 1, 2, 3, 5, 12, 100, -3, 99};
        for (int i = 0; i < xs.length; i++) sb.append(sw(xs[i])).append(',');
        mix(sb.toString().hashCode());
        System.out.println("switch " + sb);
        Legacy outer = new Legacy();
        Op op = outer.new Inner(3);
        Op anon = new Op() {
            public long apply(long a, long b) {
                return a - b * 2;
            }
        };
        long v = 1;
        for (int i = 0; i < 10; i++) v = op.apply(v, i) % 100003 + anon.apply(i, v % 10);
        mix(v);
        System.out.println("inner " + v);
        mix((long) (maths(25) * 1000));
        System.out.println("maths " + (long) maths(25));
        System.out.println("checksum " + acc);
    }
}
