package p2;

/** Not instrumented and overrides nothing: the instrumented Base.m runs. */
public class Other extends p1.Base {
}
