package com.example.threads;

/** A second thread running application code. */
public class Main {
    static final class Worker implements Runnable {
        int sum;
        @Override
        public void run() {
            for (int i = 0; i < 5; i++) sum += square(i);
        }
        static int square(int x) { return x * x; }
    }

    public static void main(String[] args) throws InterruptedException {
        Worker w = new Worker();
        Thread t = new Thread(w, "worker");
        t.start();
        t.join();
        System.out.println(w.sum);
    }
}
