package jprewrite.runtime;

/**
 * Creates the {@link MethodId}s of rewritten classes (JP's MIDFactory).
 *
 * <p>Select an implementation with {@code -Djprewrite.midFactory=<binary class name>}; the class
 * needs a public no-argument constructor. A factory may return subclasses of {@code MethodId}
 * that carry extra data. It is called from the static initialisers of rewritten classes, so it
 * must be fast, thread-safe and must not throw (if it does, a plain {@code MethodId} is used).
 */
public interface MethodIdFactory {
    /** A new MID; arguments exactly as given to {@link MethodId#get}. */
    MethodId create(String className, String name, String descriptor, int kind, int sites);
}
