package dyn;
public class Square implements Shape {
    public int area(int k) { return k * k; }
    public static int run(int n) { Shape s = new Square(); int t = 0; for (int i = 0; i < n; i++) t += s.area(i); return t; }
}
