/* Native half of com.example.jni.NativeOps (see build.sh). */
#include <jni.h>

JNIEXPORT jint JNICALL
Java_com_example_jni_NativeOps_add(JNIEnv *env, jclass cls, jint a, jint b)
{
    (void) env;
    (void) cls;
    return a + b;
}

JNIEXPORT jlong JNICALL
Java_com_example_jni_NativeOps_sum(JNIEnv *env, jclass cls, jintArray values)
{
    (void) cls;
    jsize n = (*env)->GetArrayLength(env, values);
    jint *elems = (*env)->GetIntArrayElements(env, values, NULL);
    if (elems == NULL)
        return 0; /* OutOfMemoryError pending */
    jlong total = 0;
    for (jsize i = 0; i < n; i++)
        total += elems[i];
    (*env)->ReleaseIntArrayElements(env, values, elems, JNI_ABORT);
    return total;
}

JNIEXPORT jlong JNICALL
Java_com_example_jni_NativeOps_sumWithCallback(JNIEnv *env, jobject self, jint n)
{
    jclass cls = (*env)->GetObjectClass(env, self);
    jmethodID on_value = (*env)->GetMethodID(env, cls, "onValue", "(I)J");
    if (on_value == NULL)
        return -1; /* NoSuchMethodError pending */
    jlong total = 0;
    for (jint i = 1; i <= n; i++) {
        total += (*env)->CallLongMethod(env, self, on_value, i);
        if ((*env)->ExceptionCheck(env))
            return -1;
    }
    return total;
}

JNIEXPORT jint JNICALL
Java_com_example_jni_NativeOps_checked(JNIEnv *env, jobject self, jint x)
{
    jclass cls = (*env)->GetObjectClass(env, self);
    jmethodID check = (*env)->GetMethodID(env, cls, "check", "(I)I");
    if (check == NULL)
        return -1;
    jint r = (*env)->CallIntMethod(env, self, check, x);
    if ((*env)->ExceptionCheck(env))
        return -1; /* the Java exception stays pending and is thrown on return */
    return r + 1;
}
