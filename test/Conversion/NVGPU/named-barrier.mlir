// REQUIRES: ptxas
// Named barriers lower to the CTA's hardware barriers, after the ids of
// the roles' own (storer 1, loader 2: in the order the roles first
// appear): %ready is 3, %free 4. A sync is bar.sync, an arrive bar.arrive,
// each with the threads of the 2 arrivals of a phase (2 x 128).
// RUN: tiletag-opt %S/../../Verification/schedule/named-barrier.mlir --tiletag-compile-cuda="format=isa output=%t.ptx" -o /dev/null
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// The storer's arrival on %free (before its loop and in it) and its sync
// on %ready; the loader's arrival on %ready and its sync on %free.
// CHECK: mov.b32 %r[[FREE:[0-9]+]], 4;
// CHECK-NEXT: mov.b32 %r[[N:[0-9]+]], 256;
// CHECK: bar.arrive %r[[FREE]], %r[[N]];
// CHECK: bar.sync 3, 256;
// CHECK: mov.b32 %r[[READY:[0-9]+]], 3;
// CHECK-NEXT: mov.b32 %r[[N2:[0-9]+]], 256;
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: bar.arrive %r[[READY]], %r[[N2]];
// CHECK: bar.sync 4, 256;
// RUN: FileCheck %s --check-prefix=COUNT < %t.ptx
// COUNT-COUNT-3: bar.arrive
// COUNT-NOT: bar.arrive
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS: used 5 barriers
