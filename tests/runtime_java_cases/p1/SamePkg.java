package p1;

/** Not instrumented, same runtime package as Base: its n() overrides Base's package-private n(). */
public class SamePkg extends Base {
    @Override
    String n() {
        return "SamePkg.n";
    }
}
