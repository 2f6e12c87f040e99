package budgets;

/** A small library whose costs the budget tests pin down (its twin in ../regressed is slower on purpose). */
public final class Words {
    private Words() {
    }

    /** A sorted copy (insertion sort: the cost depends only on the data). */
    public static int[] sorted(int[] data) {
        int[] a = data.clone();
        for (int i = 1; i < a.length; i++) {
            int v = a[i];
            int j = i - 1;
            while (j >= 0 && a[j] > v) {
                a[j + 1] = a[j];
                j--;
            }
            a[j + 1] = v;
        }
        return a;
    }

    /** Lower case without vowels: "Hello World" becomes "hll wrld". */
    public static String consonants(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = Character.toLowerCase(s.charAt(i));
            if (!isVowel(c)) {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    static boolean isVowel(char c) {
        return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u';
    }

    /** The n-th Fibonacci number, the slow way. */
    public static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }
}
