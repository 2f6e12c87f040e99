#!/bin/bash
# Rhino 1.7.14 (Debian's js.jar) interpreting bench/workloads/rhino.js (-opt -1: the interpreter,
# no generated classes): an interpreter-style workload, megamorphic dispatch over Scriptable objects,
# application overrides of equals/hashCode/toString called back from JDK collections.
# Installed into the shared workloads' directory by bench/cct_overhead.py (sources its lib/common.sh).
WL=rhino; . "$(dirname "$0")/../lib/common.sh"
wl_default_cp js.jar
wl_run org.mozilla.javascript.tools.shell.Main -opt -1 "$BENCH/workloads/rhino.js" || exit
wl_checksum_rlines
