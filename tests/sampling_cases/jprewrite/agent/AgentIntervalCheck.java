package jprewrite.agent;

/** Prints the agent's reading of each argument as an interval (ns, or -1): compared with the runtime's and Python's. */
public class AgentIntervalCheck {
    public static void main(String[] args) {
        for (String a : args) {
            System.out.println(AgentOptions.intervalNanos(a));
        }
    }
}
