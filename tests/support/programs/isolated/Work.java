package isolated;

public class Work {
    public static int run(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += square(i);
        }
        return s;
    }

    static int square(int x) {
        return x * x;
    }
}
