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
}
