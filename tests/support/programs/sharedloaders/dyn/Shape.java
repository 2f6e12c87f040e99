package dyn;
public interface Shape { int area(int k); }
