package p2;

/** Not instrumented, other package: its n() does NOT override p1.Base's package-private n(). */
public class PkgPriv extends p1.Base {
    String n() {
        return "PkgPriv.n";
    }
}
