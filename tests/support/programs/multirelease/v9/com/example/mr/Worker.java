package com.example.mr;

/** Release 9's copy hides {@code Thread.interrupted()} with a static method of its own. */
public class Worker extends Thread {
    public static boolean interrupted() {
        return true;
    }
}
