package com.example.recursion;

/**
 * Recursion: mutual recursion (isEven/isOdd, a small expression parser), deep recursion
 * (5,000 frames: countDown, and isEven/isOdd 5,000 deep), tree recursion (fib, binomial via
 * Pascal's rule with memo, Ackermann, Hanoi), and recursion through instance methods of a tree.
 */
public class Main {
    // ---------------------------------------------------------------- mutual recursion
    static boolean isEven(int n) { return n == 0 || isOdd(n - 1); }

    static boolean isOdd(int n) { return n != 0 && isEven(n - 1); }

    /** A recursive-descent parser: expr -> term (('+'|'-') term)*, term -> factor ('*' factor)*,
     *  factor -> digit | '(' expr ')'. expr, term and factor recurse into each other. */
    static final class Parser {
        private final String text;
        private int pos;

        Parser(String text) { this.text = text; }

        int expr() {
            int v = term();
            while (pos < text.length() && (text.charAt(pos) == '+' || text.charAt(pos) == '-')) {
                char op = text.charAt(pos++);
                int r = term();
                v = op == '+' ? v + r : v - r;
            }
            return v;
        }

        int term() {
            int v = factor();
            while (pos < text.length() && text.charAt(pos) == '*') {
                pos++;
                v *= factor();
            }
            return v;
        }

        int factor() {
            char c = text.charAt(pos++);
            if (c == '(') {
                int v = expr();
                pos++; // ')'
                return v;
            }
            return c - '0';
        }
    }

    // ---------------------------------------------------------------- deep recursion
    static int countDown(int n) {
        if (n == 0) return 0;
        return 1 + countDown(n - 1);
    }

    // ---------------------------------------------------------------- tree recursion
    static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

    static long binomial(int n, int k, long[][] memo) {
        if (k == 0 || k == n) return 1;
        if (memo[n][k] != 0) return memo[n][k];
        long v = binomial(n - 1, k - 1, memo) + binomial(n - 1, k, memo);
        memo[n][k] = v;
        return v;
    }

    static int ackermann(int m, int n) {
        if (m == 0) return n + 1;
        if (n == 0) return ackermann(m - 1, 1);
        return ackermann(m - 1, ackermann(m, n - 1));
    }

    /** A binary search tree whose insert/height/inorder recurse on instance methods. */
    static final class Tree {
        final int key;
        Tree left, right;
        Tree(int key) { this.key = key; }

        void insert(int k) {
            if (k < key) {
                if (left == null) left = new Tree(k); else left.insert(k);
            } else {
                if (right == null) right = new Tree(k); else right.insert(k);
            }
        }

        int height() {
            int l = left == null ? 0 : left.height();
            int r = right == null ? 0 : right.height();
            return 1 + Math.max(l, r);
        }

        void inorder(StringBuilder out) {
            if (left != null) left.inorder(out);
            out.append(key).append(' ');
            if (right != null) right.inorder(out);
        }
    }

    static void hanoi(int n, char from, char to, char via, int[] moves) {
        if (n == 0) return;
        hanoi(n - 1, from, via, to, moves);
        moves[0]++;
        hanoi(n - 1, via, to, from, moves);
    }

    public static void main(String[] args) {
        System.out.println("isEven(10) = " + isEven(10) + ", isOdd(7) = " + isOdd(7) + ", isEven(31) = " + isEven(31));
        System.out.println("parse 2*(3+4)-5*(1+1) = " + new Parser("2*(3+4)-5*(1+1)").expr());
        System.out.println("parse ((1+2)*(3+(4*5))) = " + new Parser("((1+2)*(3+(4*5)))").expr());

        System.out.println("countDown(5000) = " + countDown(5000));
        System.out.println("deep mutual: isEven(5000) = " + isEven(5000));

        System.out.println("fib(12) = " + fib(12));
        System.out.println("C(30,15) = " + binomial(30, 15, new long[31][31]));
        System.out.println("ackermann(2,3) = " + ackermann(2, 3));

        Tree t = new Tree(50);
        int x = 7;
        for (int i = 0; i < 40; i++) {
            x = (x * 37 + 11) % 101;
            t.insert(x);
        }
        StringBuilder sb = new StringBuilder();
        t.inorder(sb);
        System.out.println("tree height = " + t.height());
        System.out.println("inorder = " + sb.toString().trim());

        int[] moves = new int[1];
        hanoi(8, 'A', 'C', 'B', moves);
        System.out.println("hanoi(8) moves = " + moves[0]);
    }
}
