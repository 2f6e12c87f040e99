package jprewrite.agent;

/**
 * What the worker answered for one class ({@code D} frame) and what the cache stores: a status,
 * the rewritten class, its extra classes (the holder {@code C$$jpmids}) and a message.
 */
final class Result {
    /** Not instrumented (interfaces without code, ...); the message may say why. */
    static final int UNCHANGED = 0;
    /** Rewritten: {@link #classBytes} replaces the class, the extras are defined beside it. */
    static final int REWRITTEN = 1;
    /** Failed: unchanged, the message is reported once. */
    static final int FAILED = 2;

    final int status;
    final byte[] classBytes;
    /** Internal names (with '/') of the extra classes. */
    final String[] extraNames;
    final byte[][] extraClasses;
    final String message;

    Result(int status, byte[] classBytes, String[] extraNames, byte[][] extraClasses, String message) {
        this.status = status;
        this.classBytes = classBytes == null ? new byte[0] : classBytes;
        this.extraNames = extraNames == null ? new String[0] : extraNames;
        this.extraClasses = extraClasses == null ? new byte[0][] : extraClasses;
        this.message = message == null ? "" : message;
    }

    /**
     * The rest of a result after its status, as a {@code D} frame and a cache entry both hold it:
     * bytes class, {@code u2} n, n &times; (str name, bytes class), str message. Null when the
     * status is unknown or bytes are left over (a malformed answer or a damaged entry).
     */
    static Result read(int status, Frames.Reader r) throws java.io.IOException {
        byte[] classBytes = r.bytes();
        int n = r.u2();
        String[] names = new String[n];
        byte[][] extras = new byte[n][];
        for (int i = 0; i < n; i++) {
            names[i] = r.str();
            extras[i] = r.bytes();
        }
        String message = r.str();
        if (status > FAILED || r.remaining() != 0) {
            return null;
        }
        return new Result(status, classBytes, names, extras, message);
    }
}
