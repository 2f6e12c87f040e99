package com.example.mr;

public interface Shape {
    int area();
}
