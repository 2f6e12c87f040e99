package jprewrite.runtime;

/** Package-private state of the runtime that the tests look at (same package on the class path). */
public final class TestAccess {
    /** Registered thread roots whose threads have not been folded into the merged tree yet. */
    public static int liveRoots() {
        return Registry.liveCount();
    }

    private TestAccess() {
    }
}
