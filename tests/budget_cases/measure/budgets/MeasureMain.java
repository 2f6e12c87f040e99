package budgets;

import java.util.concurrent.Callable;

import jprewrite.runtime.Measure;
import jprewrite.runtime.Measurement;

/**
 * Measure.run/call from rewritten code (tests/test_measure.py): repeated measurements, a value,
 * a nested measurement, an exception, a thread started by the measured code, an empty body.
 * Prints one line per check: {@code name bytecodes calls}.
 */
public final class MeasureMain {
    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 3; i++) {
            Measurement m = Measure.run(() -> Words.fib(10));
            System.out.println("fib10 " + m.bytecodes() + " " + m.calls());
        }
        Measurement c = Measure.call(new Callable<String>() {
            @Override
            public String call() {
                return Words.consonants("Measured Code");
            }
        });
        System.out.println("call " + c.bytecodes() + " " + c.calls() + " " + c.value());
        Measurement outer = Measure.run(() -> {
            Words.fib(5);
            Measurement inner = Measure.run(() -> Words.fib(8));
            System.out.println("inner " + inner.bytecodes() + " " + inner.calls());
        });
        System.out.println("outer " + outer.bytecodes() + " " + outer.calls());
        try {
            Measure.run(() -> {
                Words.fib(6);
                throw new IllegalArgumentException("from the body");
            });
        } catch (IllegalArgumentException e) {
            System.out.println("thrown " + e.getMessage());
        }
        Measurement threads = Measure.run(() -> {
            Thread t = new Thread(() -> Words.fib(15), "helper");
            t.start();
            try {
                t.join();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        System.out.println("thread " + threads.bytecodes() + " " + threads.calls());
        Measurement empty = Measure.run(() -> { });
        System.out.println("empty " + empty.bytecodes() + " " + empty.calls());
        Measurement fib = Measure.run(() -> Words.fib(12));
        System.out.println("within " + fib.within("budgets.Words.fib(I)I").bytecodes());
        System.out.println("json " + fib.toJson().replace('\n', ' '));
        System.out.println("toString " + fib.toString().replace('\n', '|'));
    }
}
