#!/usr/bin/env bash
# Builds the JNI sample's native library: build.sh [OUT_DIR]  ->  OUT_DIR/libjnisample.so
# (OUT_DIR defaults to ./build). Needs gcc and a JDK (JAVA_HOME, or javac on PATH).
# Run the sample with: java -Djava.library.path=OUT_DIR -cp <classes> com.example.jni.Main
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/build}"
if [ -z "${JAVA_HOME:-}" ]; then
    javac_path="$(command -v javac)" || { echo "build.sh: set JAVA_HOME or put javac on PATH" >&2; exit 2; }
    JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$javac_path")")")"
fi
command -v gcc >/dev/null || { echo "build.sh: gcc not found" >&2; exit 3; }
mkdir -p "$out"
gcc -O2 -Wall -Wextra -Werror -shared -fPIC \
    -I"$JAVA_HOME/include" -I"$JAVA_HOME/include/linux" \
    -o "$out/libjnisample.so" "$here/native/jni_sample.c"
echo "$out/libjnisample.so"
