import jprewrite.runtime.MethodId;
import jprewrite.runtime.MethodIdFactory;

/** A custom MID factory (JP's MIDFactory): MIDs that carry a serial number. */
public class TaggingFactory implements MethodIdFactory {
    static int created;

    static final class TaggedMid extends MethodId {
        final int serial;

        TaggedMid(String c, String n, String d, int kind, int sites, int serial) {
            super(c, n, d, kind, sites);
            this.serial = serial;
        }
    }

    @Override
    public synchronized MethodId create(String className, String name, String descriptor, int kind, int sites) {
        return new TaggedMid(className, name, descriptor, kind, sites, ++created);
    }
}
