package jprewrite.runtime;

/** Prints the runtime's reading of each argument as an interval (ns, or -1): compared with the agent's and Python's. */
public class IntervalCheck {
    public static void main(String[] args) {
        for (String a : args) {
            System.out.println(SamplingConfig.parseInterval(a));
        }
    }
}
