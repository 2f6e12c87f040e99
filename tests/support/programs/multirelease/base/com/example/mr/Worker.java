package com.example.mr;

/** The base copy: {@code Worker.interrupted()} is the JDK's {@code Thread.interrupted()}. */
public class Worker extends Thread {
}
